#!/usr/bin/env bash
# Regenerates the labelled HTTPS captures in testdata/ (https-*): for each scenario
#   NAME.pcap            the capture without secrets (the keyless case)
#   NAME.keys            the client's NSS key log (SSLKEYLOGFILE format), beside it
#   NAME.keyed.pcapng    the same packets with the key log embedded (editcap --inject-secrets tls,...)
#   NAME.client.jsonl    the client's own per-call latencies
#   NAME.label.json      calls, connections, handshakes and the stalls with their sides (tls_wirecheck.py,
#                        which decrypts with tshark and the key log)
# The test CA and server key are made at run time in a temporary directory (https/make-test-ca.sh) and
# deleted afterwards: no private key is committed. The key logs in testdata/ unlock only these captures.
#
#   STALLSCOPE_BUILD=/path/to/build reference-services/https/make-https-testdata.sh [NAME...]
#
# Network namespaces (the netns scenario) are named tlsfield-* (STALLSCOPE_NETNS_PREFIX).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="${STALLSCOPE_TESTDATA:-$REPO/testdata}"
export STALLSCOPE_BUILD="${STALLSCOPE_BUILD:-$REPO/build}"
export STALLSCOPE_NETNS_PREFIX="${STALLSCOPE_NETNS_PREFIX:-tlsfield}"
for b in stallscope-refserver stallscope-refclient; do
  [ -x "$STALLSCOPE_BUILD/reference-services/$b" ] || { echo "make-https-testdata: build $b first" >&2; exit 2; }
done
mkdir -p "$OUT"
only=("$@")
failed=()

scenario() {  # NAME "EXPECT JSON" "DESCRIPTION" run-scenario args...
  local name="$1" expect="$2" desc="$3"; shift 3
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then return 0; fi
  echo "== $name" >&2
  if ! "$HERE/../run-scenario.sh" --out "$OUT/$name" --description "$desc" --pathologies "$expect" "$@"; then
    echo "make-https-testdata: $name: scenario failed" >&2; failed+=("$name"); return 0
  fi
  python3 "$HERE/label_tls_wirecheck.py" "$OUT/$name.label.json" "$OUT/$name.pcap" "$OUT/$name.keys" \
    "reference-services/https/make-https-testdata.sh $name" || failed+=("$name")
  local size; size=$(stat -c %s "$OUT/$name.pcap")
  [ "$size" -le 307200 ] || { echo "make-https-testdata: $name.pcap is $size bytes (> 300 KB)" >&2; failed+=("$name"); }
}

# EXPECT: what the design should put on the wire, checked against tls_wirecheck.py (the wire wins):
# stalls per side, full/resumed handshakes, and whether the server's first flight outgrows the initial window.
# Stalls are counted inside calls; nagle_stalls_in_setup are those before a connection's first request record.
e() {  # client_stalls server_stalls full resumed [cert_over_initcwnd] [stalls_in_setup]
  printf '{"nagle_stalls_client":%d,"nagle_stalls_server":%d,"nagle_stalls_in_setup":%d,"full_handshakes":%d,"resumed_handshakes":%d,"flight_over_initial_window":%d}' \
    "$1" "$2" "${6:-0}" "$3" "$4" "${5:-0}"
}

scenario https-xsoap-tls13 "$(e 3 4 1 0)" \
  "xsoap over TLS 1.3 on loopback: keep-alive, headers and body in two SSL_writes (two TLS records) on both sides, Nagle on. Call 1: the response body record waits ~44 ms for the client's delayed ACK of the header record; from call 2 on both the request body and the response body wait (~88 ms per call)." \
  --profile xsoap --op getString --size 200 --calls 4 --tls 1.3
scenario https-xsoap-tls12 "$(e 4 4 1 0)" \
  "The same xsoap scenario over TLS 1.2 (ECDHE, AES-GCM): two records per message, the same Nagle/delayed-ACK stalls, and call 1's request body waits too (after the TLS 1.2 handshake the server no longer quick-ACKs): two stalls on every call." \
  --profile xsoap --op getString --size 200 --calls 4 --tls 1.2
scenario https-apache-soap-tls13-noresume "$(e 0 0 4 0)" \
  "apache-soap over TLS 1.3: HTTP/1.0, a new connection and a full TLS handshake for every call (the client does not offer its session: --tls-resume off), Nagle on, two records per request, delayed-ACK server (--delack). No Nagle stall: the server's session-ticket records carry the ACK the request's header record waits for (or the header record leaves with the body behind the unACKed client Finished). The cost is the handshake per call." \
  --profile apache-soap --op doNothing --calls 4 --tls 1.3 --server-args "--delack" --client-args "--tls-resume off"
scenario https-apache-soap-tls12-resume "$(e 1 0 1 3 0 3)" \
  "apache-soap over TLS 1.2 with session resumption: a connection per call, the first with a full handshake, calls 2-4 resume the session (abbreviated handshake, no certificate). Call 1's request body record waits ~44 ms for the delayed-ACK server (--delack); on the resumed connections the client's Finished is the small unACKed segment and the whole request (both records) waits behind it: that hold is before the first request byte, in the connection's setup." \
  --profile apache-soap --op doNothing --calls 4 --tls 1.2 --server-args "--delack"
scenario https-gsoap-tls13 "$(e 0 0 1 0)" \
  "gSOAP-like clean baseline over TLS 1.3: one SSL_write per message, TCP_NODELAY, keep-alive; echoInts of 100 ints." \
  --profile gsoap --op echoInts --size 100 --calls 4 --tls 1.3
scenario https-expect-tls12 "$(e 0 0 1 0)" \
  "Expect: 100-continue over TLS 1.2: the client sends the headers record, the server answers 100 Continue at once, then the body record: one extra round trip per call, no timer wait (TCP_NODELAY both sides)." \
  --profile gsoap --op echoInts --size 100 --calls 3 --tls 1.2 --client-args "--expect-100 1000" --server-args "--continue immediate"
scenario https-ticket-tls13 "$(e 0 1 1 0)" \
  "The TLS 1.3 session-ticket stall: the server (Nagle on, one write per response) sends its session tickets right after the handshake; the Windows-like client (--delack) does not ACK them at once, so the first response of the connection waits ~40 ms behind them. Later responses do not wait." \
  --profile gsoap --op echoInts --size 100 --calls 3 --tls 1.3 --server-args "--nodelay off" --client-args "--delack"
scenario https-big-response-tls13 "$(e 0 2 1 0)" \
  "One SSL_write per response, but 40 KB: OpenSSL cuts it into 16 KB records and sends each with its own send(); with Nagle on (server) the last record waits for the client's delayed ACK (~40 ms) on every call after the first (keep-alive, loopback)." \
  --profile gsoap --op getIntegers --size 2300 --calls 3 --tls 1.3 --server-args "--nodelay off"
scenario https-netns-bigcert-tls12 "$(e 0 0 3 0 3)" \
  "Two namespaces joined by a veth pair (MTU 1500): a connection and a full TLS 1.2 handshake per call (no resumption) with a ~26 KB certificate (padded with 400 names): the server's first flight (20 segments) is larger than the 10-segment initial congestion window. On a veth the client's ACKs return within microseconds, so here the sender barely waits; on a real path the flight would cost one more round trip." \
  --profile gsoap --op doNothing --calls 3 --tls 1.2 --tls-cert-names 400 --netns --client-args "--http 1.0 --tls-resume off"

# Over a path with a real round trip (delay-path.sh: client, router, server namespaces; 10 ms one
# way): the server's capture only (NAME.pcap), the client's and the router's are dropped.
path_scenario() {  # NAME "EXPECT JSON" "DESCRIPTION" run-scenario args...
  local name="$1"
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then return 0; fi
  local pre=$((${#failed[@]}))
  scenario "$@" --path-delay 10 --path-jitter 0.4 --server-point-only
  [ ${#failed[@]} -eq "$pre" ] || return 0
}
# The certificate flight: the same ~26 KB certificate as https-netns-bigcert-tls12, now over a 20 ms
# round trip: the server sends 10 segments, waits one round trip for the client's ACK, then the rest.
path_scenario https-path-bigcert-tls12 \
  '{"nagle_stalls_client":0,"nagle_stalls_server":0,"nagle_stalls_in_setup":2,"full_handshakes":2,"resumed_handshakes":0,"flight_over_initial_window":2,"flight_waits_for_ack":2}' \
  "A path with a 20 ms round trip (client, router and server namespaces joined by two delay links, 10 ms one way), captured at the server: a connection and a full TLS 1.2 handshake per call (no resumption) with a ~26 KB certificate (padded with 400 names). The server's first flight (about 20 segments) is larger than the 10-segment initial congestion window: after 10 segments the server waits one round trip for the client's ACK before the rest of its certificate, in every handshake. The wire check's Nagle signature (a segment, the peer's ACK, the next segment) sees the same two waits in the setup (nagle_stalls_in_setup 2): they are these congestion-window waits, not Nagle." \
  --profile gsoap --op doNothing --calls 2 --tls 1.2 --tls-cert-names 400 --client-args "--http 1.0 --tls-resume off"

toolkit() {  # NAME CLIENT TLS "DESCRIPTION"
  local name="$1" client="$2" tls="$3" desc="$4"
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then return 0; fi
  echo "== $name" >&2
  if ! "$HERE/toolkit-https.sh" "$client" --out "$OUT/$name" --tls "$tls" --calls 3 --description "$desc"; then
    failed+=("$name"); return 0
  fi
  python3 "$HERE/label_tls_wirecheck.py" "$OUT/$name.label.json" "$OUT/$name.pcap" "$OUT/$name.keys" \
    "reference-services/https/make-https-testdata.sh $name" || failed+=("$name")
}
# Real clients against the xsoap-like TLS server (response headers and body in two records, Nagle on).
toolkit https-toolkit-curl-percall curl-percall 1.3 \
  "curl, one process per call: a TCP connection and a full TLS 1.3 handshake per call (curl keeps no session across processes)."
toolkit https-toolkit-curl-keepalive curl-keepalive 1.2 \
  "curl, 3 URLs in one process over TLS 1.2: one connection; the server's split response waits for curl's delayed ACK from call 2 on."
toolkit https-toolkit-requests requests 1.3 \
  "python3-requests Session over TLS 1.3: one kept-alive connection; the server's split response waits for the client's delayed ACK."
toolkit https-toolkit-soaplite soaplite 1.2 \
  "SOAP::Lite (LWP, IO::Socket::SSL) over TLS 1.2: Connection: close, a connection and a handshake per call."
toolkit https-toolkit-gsoap gsoap 1.2 \
  "gSOAP 2.8 C++ client (libgsoapssl++) over TLS 1.2, soap_new(): Connection: close, a connection per call; gSOAP keeps its TLS session, so calls 2-3 resume (abbreviated handshakes). gSOAP sends the URL's host (127.0.0.1) as SNI."
toolkit https-toolkit-gsoap-keepalive gsoap-keepalive 1.3 \
  "gSOAP 2.8 C++ client (libgsoapssl++) over TLS 1.3 with SOAP_IO_KEEPALIVE: one connection for every call; the server's split response waits for gSOAP's delayed ACK from call 2 on."

if [ ${#failed[@]} -gt 0 ]; then
  echo "make-https-testdata: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "make-https-testdata: all HTTPS scenarios written to $OUT" >&2
