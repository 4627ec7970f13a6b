#!/usr/bin/env bash
# Regenerates the labelled reference captures in testdata/ (refsvc-*.pcap, .label.json, .client.jsonl),
# then the real-toolkit ones via reference-services/toolkits/make-testdata.sh if it exists.
#
#   STALLSCOPE_BUILD=/path/to/build reference-services/make-testdata.sh [NAME...]
#
# Each scenario states the pathologies its design should produce (calls affected); wirecheck.py
# then counts them on the wire, the result is stored in the label under "wire_check", and the
# script exits non-zero if design and wire disagree (the wire wins: fix the design or the label).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
OUT="${STALLSCOPE_TESTDATA:-$REPO/testdata}"
export STALLSCOPE_BUILD="${STALLSCOPE_BUILD:-$REPO/build}"
for b in stallscope-refserver stallscope-refclient; do
  if [ ! -x "$STALLSCOPE_BUILD/reference-services/$b" ]; then
    echo "make-testdata: $STALLSCOPE_BUILD/reference-services/$b missing; build it first:" >&2
    echo "  cmake -S $REPO -B $STALLSCOPE_BUILD -G Ninja && ninja -C $STALLSCOPE_BUILD stallscope-refserver stallscope-refclient" >&2
    exit 2
  fi
done
mkdir -p "$OUT"
only=("$@")
failed=()

p() {  # pathologies JSON: nagle split expect setup
  printf '{"nagle_delayed_ack":%d,"split_write":%d,"expect_100_wait":%d,"connection_setup":%d}' "$1" "$2" "$3" "$4"
}

scenario() {  # NAME "DESIGN JSON" "DESCRIPTION" run-scenario args...
  local name="$1" design="$2" desc="$3"; shift 3
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then return 0; fi
  echo "== $name" >&2
  if ! "$HERE/run-scenario.sh" --out "$OUT/$name" --description "$desc" --pathologies "$design" "$@"; then
    echo "make-testdata: $name: scenario failed" >&2; failed+=("$name"); return 0
  fi
  if ! python3 "$HERE/label_wirecheck.py" "$OUT/$name.label.json" "$OUT/$name.pcap"; then
    failed+=("$name")
  fi
  local size; size=$(stat -c %s "$OUT/$name.pcap")
  [ "$size" -le 204800 ] || { echo "make-testdata: $name.pcap is $size bytes (> 200 KB)" >&2; failed+=("$name"); }
}

scenario refsvc-apache-soap "$(p 5 5 0 5)" \
  "Apache SOAP (seed Fig. 2) on loopback: HTTP/1.0 connection per call, headers and body in two writes with Nagle on; the server delays ACKs from the first segment (--delack, Windows-like), so every request body waits ~44 ms for the ACK of its headers. Responses are split too but the Linux client quick-ACKs them." \
  --profile apache-soap --op doNothing --calls 5 --server-args "--delack"
scenario refsvc-apache-soap-fixed "$(p 0 0 0 0)" \
  "apache-soap-fixed against the same delayed-ACK server: writev + TCP_NODELAY + HTTP/1.1 keep-alive; one connection, no stalls." \
  --profile apache-soap-fixed --op doNothing --calls 5 --server-args "--delack"
scenario refsvc-ms-soap "$(p 5 0 5 0)" \
  "MS SOAP Toolkit (seed Fig. 3): request in one write, the server sends an unasked 100 Continue after the whole request, then Nagle holds its response until the client's delayed ACK of the 100 (~44 ms). Client receiver is Windows-like (--delack) so it shows from call 1; keep-alive." \
  --profile ms-soap --op doNothing --calls 5 --client-args "--delack"
scenario refsvc-ms-soap-fixed "$(p 0 0 0 0)" \
  "ms-soap-fixed with the same delayed-ACK client: the server sends no unneeded 100 and has TCP_NODELAY; no stalls." \
  --profile ms-soap-fixed --op doNothing --calls 5 --client-args "--delack"
scenario refsvc-soaplite "$(p 5 5 0 5)" \
  "SOAP::Lite-like: HTTP/1.0 connection per call, client writes headers then body (Nagle on), server answers in one write; delayed-ACK server (--delack) holds each request body ~44 ms. getString char[200] as in seed Table III/IV." \
  --profile soaplite --op getString --size 200 --calls 5 --server-args "--delack"
scenario refsvc-xsoap "$(p 5 6 0 0)" \
  "XSOAP/SoapRMI-like keep-alive, headers and body in two writes on both sides, Nagle on, plain Linux receivers: call 1 is quick-ACKed, from call 2 on each call stalls twice (request body ~44 ms, response body ~44 ms; ~88 ms per call)." \
  --profile xsoap --op getString --size 200 --calls 6
scenario refsvc-xsoap-client-nodelay "$(p 5 6 0 0)" \
  "refsvc-xsoap with only the client fixed (--nodelay on in the client, the server as it was): a partial fix for compare's verdicts per side. The request body no longer waits, but from call 2 on the server still holds each response body ~44 ms for the client's delayed ACK of the response headers." \
  --profile xsoap --op getString --size 200 --calls 6 --client-args "--nodelay on"
scenario refsvc-xsoap-nodelay "$(p 0 6 0 0)" \
  "refsvc-xsoap with both sides fixed (--nodelay on in the client and the server): the Nagle holds are gone on both sides (compare's prediction for both removed together); headers and body still leave in two writes (split_write, no cost)." \
  --profile xsoap --op getString --size 200 --calls 6 --client-args "--nodelay on" --server-args "--nodelay on"
scenario refsvc-gsoap "$(p 0 0 0 0)" \
  "gSOAP-like clean baseline: one write per message, TCP_NODELAY, keep-alive; echoInts of 100 ints." \
  --profile gsoap --op echoInts --size 100 --calls 5
scenario refsvc-expect-never "$(p 0 0 5 0)" \
  "Client sends Expect: 100-continue and waits up to 200 ms; the server never answers 100, so every body leaves after the client's 200 ms timer. Headers and body are separate segments because of Expect (counted as expect_100_wait, not split_write)." \
  --profile gsoap --op echoInts --size 100 --calls 5 --client-args "--expect-100 200" --server-args "--continue never"
scenario refsvc-expect-immediate "$(p 0 0 5 0)" \
  "Client sends Expect: 100-continue (waits up to 1000 ms), the server answers 100 Continue at once: one extra round trip per call, no timer wait." \
  --profile gsoap --op echoInts --size 100 --calls 5 --client-args "--expect-100 1000" --server-args "--continue immediate"
scenario refsvc-many-writes "$(p 0 5 0 0)" \
  "Both sides write every message in 64-byte write() calls with TCP_NODELAY: many small segments per message, no stall (Nagle off)." \
  --profile gsoap --op echoInts --size 20 --calls 5 --client-args "--write many" --server-args "--write many"
scenario refsvc-chunked "$(p 0 0 0 0)" \
  "Server responses with Transfer-Encoding: chunked (4096-byte chunks), one write, TCP_NODELAY, keep-alive; getIntegers of 1000 ints; no pathology." \
  --profile gsoap --op getIntegers --size 1000 --calls 5 --server-args "--chunked"
scenario refsvc-xsoap-netns-40k "$(p 3 4 0 0)" \
  "Two hosts: client and server in two network namespaces joined by a veth pair, MTU 1500 (GSO off so the capture shows 1448-byte segments). xsoap keep-alive; getIntegers 2300 gives a ~40 KB response of 28 full segments. From call 2 on the small split request stalls ~44 ms; the big response's header/body split does not stall (full segments are not held by Nagle and are ACKed at once)." \
  --profile xsoap --op getIntegers --size 2300 --calls 4 --netns

if [ ${#only[@]} -eq 0 ] && [ -x "$HERE/toolkits/make-testdata.sh" ]; then
  echo "== toolkits/make-testdata.sh" >&2
  "$HERE/toolkits/make-testdata.sh" || failed+=("toolkits")
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "make-testdata: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "make-testdata: all scenarios written to $OUT" >&2
