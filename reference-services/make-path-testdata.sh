#!/usr/bin/env bash
# Regenerates the three-point captures in testdata/path/: the same run of the reference services
# captured at once at the client, on a middle router and at the server, over a path with a real round
# trip (delay-path.sh: two user-space delay links; 10 or 25 ms one way, up to 0.4 ms of jitter).
# Per run NAME: NAME.client.pcap, NAME.middle.pcap, NAME.server.pcap, NAME.client.jsonl, NAME.label.json.
#
#   STALLSCOPE_BUILD=/path/to/build reference-services/make-path-testdata.sh [NAME...]
#
# Needs root (ip netns, /dev/net/tun, tcpdump). Namespaces and devices are named
# $STALLSCOPE_NETNS_PREFIX-* (default stallscope) and removed on exit.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
OUT="${STALLSCOPE_TESTDATA:-$REPO/testdata}/path"
export STALLSCOPE_BUILD="${STALLSCOPE_BUILD:-$REPO/build}"
for b in stallscope-refserver stallscope-refclient stallscope-delaylink; do
  [ -x "$STALLSCOPE_BUILD/reference-services/$b" ] || {
    echo "make-path-testdata: $STALLSCOPE_BUILD/reference-services/$b missing; build it first" >&2; exit 2; }
done
mkdir -p "$OUT"
only=("$@")
failed=()

p() {  # pathologies the configuration causes (calls affected): nagle split expect setup [message_size]
  printf '{"nagle_delayed_ack":%d,"split_write":%d,"expect_100_wait":%d,"connection_setup":%d,"message_size":%d,"server_time":0}' \
    "$1" "$2" "$3" "$4" "${5:-0}"
}

run() {  # BASENAME "DESIGN JSON" "DESCRIPTION" run-scenario args...  (once per one-way delay)
  local base="$1" design="$2" desc="$3"; shift 3
  local d name
  for d in 10 25; do
    name="$base-${d}ms"
    if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
    echo "== $name" >&2
    if ! "$HERE/run-scenario.sh" --out "$OUT/$name" --path-delay "$d" --path-jitter 0.4 \
         --description "$desc (one-way delay $d ms, round trip $((2 * d)) ms)" --pathologies "$design" "$@"; then
      echo "make-path-testdata: $name: scenario failed" >&2; failed+=("$name"); continue
    fi
    local f size
    for f in "$OUT/$name".{client,middle,server}.pcap; do
      size=$(stat -c %s "$f")
      [ "$size" -le 204800 ] || { echo "make-path-testdata: $f is $size bytes (> 200 KB)" >&2; failed+=("$name"); }
    done
  done
}

run path-server-nagle "$(p 4 4 0 0)" \
  "Server Nagle: the server writes response headers and body apart with Nagle on (xsoap server), the client delays its ACKs (--delack) and sends each request in one write with TCP_NODELAY; keep-alive. Every response body waits for the client's delayed ACK of the response headers" \
  --profile gsoap --server-profile xsoap --op doNothing --calls 4 --client-args "--delack"
run path-client-split "$(p 4 4 0 0)" \
  "Client split write: the client writes request headers and body apart with Nagle on (xsoap client), the server delays its ACKs (--delack) and answers in one write with TCP_NODELAY; keep-alive. Every request body waits for the server's delayed ACK of the request headers" \
  --profile gsoap --client-profile xsoap --op doNothing --calls 4 --server-args "--delack"
run path-expect-never "$(p 0 0 4 0 4)" \
  "Expect never answered: the client sends Expect: 100-continue and waits up to 200 ms, the server never answers 100; every body leaves on the client's 200 ms timer (echoInts of 100 ints: message_size too, a property of the operation)" \
  --profile gsoap --op echoInts --size 100 --calls 4 --client-args "--expect-100 200" --server-args "--continue never"
run path-expect-late "$(p 4 0 4 0)" \
  "Expect answered late: the client sends Expect: 100-continue and waits up to 200 ms; the MS-SOAP-like server sends its 100 Continue only after the whole request arrived (after the client's timer ran out), with Nagle on, so its one-segment response is then held until the client's delayed ACK (--delack) of the 100 (seed Fig. 3). doNothing: with a response of more than one segment the client ACKs two full segments at once and Nagle holds the tail one round trip only, no delayed ACK" \
  --profile gsoap --server-profile ms-soap --op doNothing --calls 4 --client-args "--expect-100 200 --delack"
run path-per-call "$(p 0 0 0 4)" \
  "Per-call connections: gSOAP-like one-write messages with TCP_NODELAY, but HTTP/1.0, so every call opens (and the server closes) its own connection; each call pays a handshake round trip" \
  --profile gsoap --op doNothing --calls 4 --client-args "--http 1.0"
run path-apache-soap "$(p 4 4 0 4)" \
  "Apache-SOAP-style HTTP/1.0: a connection per call, headers and body in two writes with Nagle on; the server delays ACKs (--delack), so every request body waits for the ACK of its headers" \
  --profile apache-soap --op doNothing --calls 4 --server-args "--delack"
run path-gsoap "$(p 0 0 0 0 4)" \
  "Clean gSOAP-like run: one write per message, TCP_NODELAY, keep-alive; echoInts of 100 ints (message_size: a verbose envelope, a property of the operation); the server answers in well under a millisecond, so everything beyond that is the path" \
  --profile gsoap --op echoInts --size 100 --calls 4

if [ ${#failed[@]} -gt 0 ]; then
  echo "make-path-testdata: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "make-path-testdata: all runs written to $OUT" >&2
