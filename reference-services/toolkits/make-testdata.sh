#!/usr/bin/env bash
# Captures every real-toolkit scenario (default and --fixed) with tcpdump on loopback and writes
#   testdata/toolkit-<scenario>[-fixed].pcap  and  testdata/toolkit-<scenario>[-fixed].label.json
# The label's pathology counts are read from the capture by label-capture.py (not assumed).
# usage: make-testdata.sh [--calls N] [--out DIR] [NAME ...]   (NAME e.g. toolkit-gsoap-fixed; default all)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="$REPO/testdata"
CALLS=5
ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --calls) CALLS="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    -h|--help) sed -n 2,6p "$0"; exit 0 ;;
    -*) echo "make-testdata.sh: unknown option $1" >&2; exit 2 ;;
    *) ONLY+=("$1") ;;
  esac
  shift
done
[ "$(id -u)" -eq 0 ] || { echo "make-testdata.sh: tcpdump on lo needs root" >&2; exit 1; }
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/toolkit-testdata.XXXXXX)"
TCPDUMP=""
cleanup() { [ -n "$TCPDUMP" ] && kill -TERM "$TCPDUMP" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# capture NAME SCRIPT MODE-FLAG("" or --fixed ...) PORT CLIENT SERVER DESCRIPTION
capture() {
  local name=$1 script=$2 mode=$3 port=$4 client=$5 server=$6 desc=$7
  if [ ${#ONLY[@]} -gt 0 ] && ! printf '%s\n' "${ONLY[@]}" | grep -qx "$name"; then return 0; fi
  local pcap="$OUT/$name.pcap" label="$OUT/$name.label.json" i
  local args=(--port "$port" --calls "$CALLS"); [ -n "$mode" ] && args=("$mode" "${args[@]}")
  local cmd="reference-services/toolkits/$script ${args[*]}"
  echo "== $name: $cmd" >&2
  if ss -Hltn "sport = :$port" | grep -q .; then echo "make-testdata.sh: port $port busy" >&2; return 1; fi
  rm -f "$pcap"
  tcpdump -i lo -U -Z root -s 0 -w "$pcap" "tcp port $port" 2>"$WORK/tcpdump.err" &
  TCPDUMP=$!
  for i in $(seq 1 100); do grep -q "listening on" "$WORK/tcpdump.err" && break; sleep 0.1; done
  grep -q "listening on" "$WORK/tcpdump.err" || { echo "make-testdata.sh: tcpdump did not start" >&2; cat "$WORK/tcpdump.err" >&2; return 1; }
  sleep 0.5  # "listening on" can come a moment before packets are really delivered
  local rc=0
  "$HERE/$script" "${args[@]}" >"$WORK/latencies.jsonl" 2>"$WORK/scenario.err" || rc=$?
  sleep 1   # let the last FIN/ACKs reach the file before stopping tcpdump
  kill -TERM "$TCPDUMP"; wait "$TCPDUMP" 2>/dev/null || true; TCPDUMP=""
  grep -E "captured|dropped" "$WORK/tcpdump.err" | sed 's/^/   tcpdump: /' >&2
  # tcpdump's ring holds few packets with -s 0 in --immediate-mode, hence no --immediate-mode above
  if ! grep -q "^0 packets dropped by kernel" "$WORK/tcpdump.err"; then
    echo "make-testdata.sh: $name: tcpdump dropped packets; rerun" >&2; return 1
  fi
  if [ $rc -ne 0 ]; then echo "make-testdata.sh: $name failed (rc $rc):" >&2; cat "$WORK/scenario.err" >&2; return 1; fi
  "$HERE/label-capture.py" --pcap "$pcap" --port "$port" --latencies "$WORK/latencies.jsonl" \
    --name "$name" --made-by "$cmd" --description "$desc" --client "$client" --server "$server" --out "$label"
  echo "   $(stat -c %s "$pcap") bytes -> $pcap" >&2
}

PY_SYS=/usr/bin/python3
GSOAP_V="gSOAP $(dpkg-query -W -f='${Version}' gsoap 2>/dev/null)"
capture toolkit-gsoap toolkit-gsoap.sh "" 18101 "$GSOAP_V C++ client (soap_new(), defaults)" "$GSOAP_V C++ server (soap_new(), defaults)" \
  "gSOAP client and server with their defaults, echoString of a 200-char string: gSOAP sends Connection: close, so every call opens its own TCP connection; each message leaves in one segment (TCP_NODELAY, one buffer)."
capture toolkit-gsoap-fixed toolkit-gsoap.sh --fixed 18102 "$GSOAP_V C++ client (SOAP_IO_KEEPALIVE)" "$GSOAP_V C++ server (SOAP_IO_KEEPALIVE)" \
  "gSOAP client and server with SOAP_IO_KEEPALIVE: all calls on one kept-alive HTTP/1.1 connection, each message in one segment; the clean baseline."

SL_V="SOAP::Lite $(perl -MSOAP::Lite -e 'print $SOAP::Lite::VERSION')"
capture toolkit-soaplite toolkit-soaplite.sh "" 18111 "$SL_V client (LWP, defaults)" "$SL_V SOAP::Transport::HTTP::Daemon (HTTP::Daemon)" \
  "SOAP::Lite client and daemon with their defaults, echoString of 200 chars: the client sends Connection: TE, close, so every call opens its own connection; the daemon writes each response in 6 writes (17-byte status line, headers, blank line, body), which on a fresh connection does not stall because Linux quick-ACKs."
capture toolkit-soaplite-keepalive toolkit-soaplite.sh --keepalive 18112 "$SL_V client (proxy keep_alive => 1)" "$SL_V SOAP::Transport::HTTP::Daemon (HTTP::Daemon)" \
  "SOAP::Lite client with keep_alive => 1 against the default daemon: one connection; from call 2 on, the daemon's status line (17 bytes) goes out alone and Nagle holds the rest of the response until the client's delayed ACK (~40 ms)."
capture toolkit-soaplite-fixed toolkit-soaplite.sh --fixed 18113 "$SL_V client (proxy keep_alive => 1)" "$SL_V SOAP::Transport::HTTP::Daemon with TCP_NODELAY on accepted sockets" \
  "SOAP::Lite client with keep_alive => 1, daemon with TCP_NODELAY: one connection and no Nagle stall; the response still leaves in several small writes."

ZS_V="zeep $($PY_SYS -c 'import zeep; print(zeep.__version__)') (requests $($PY_SYS -c 'import requests; print(requests.__version__)'))"
SP_V="spyne $($PY_SYS -c 'import spyne; print(spyne.__version__)')"
capture toolkit-zeep-spyne toolkit-zeep-spyne.sh "" 18121 "$ZS_V client, default Transport" "$SP_V WsgiApplication on wsgiref.simple_server (Python $($PY_SYS -c 'import platform; print(platform.python_version())'))" \
  "zeep client against spyne served by wsgiref.simple_server as in spyne's examples: wsgiref answers HTTP/1.0 and closes, so every call opens its own connection (the WSDL GET before the calls has its own connection too); zeep writes request headers and body separately (TCP_NODELAY, no stall) and wsgiref writes each response in 5 writes (status line, headers, body); a fresh connection is quick-ACKed so nothing stalls."
capture toolkit-zeep-spyne-keepalive toolkit-zeep-spyne.sh --keepalive 18122 "$ZS_V client, default Transport" "$SP_V WsgiApplication behind http.server BaseHTTPRequestHandler, protocol_version HTTP/1.1" \
  "zeep client against spyne behind Python's http.server with HTTP/1.1: the WSDL GET and all calls share one connection; the server writes the response headers and body in two writes and Nagle holds the body until the client's delayed ACK of the headers (~40 ms) on every call."
capture toolkit-zeep-spyne-fixed toolkit-zeep-spyne.sh --fixed 18123 "$ZS_V client, default Transport" "$SP_V WsgiApplication behind http.server HTTP/1.1 with TCP_NODELAY on accepted sockets" \
  "As toolkit-zeep-spyne-keepalive with TCP_NODELAY on the server socket: one connection, no Nagle stall; headers and body still leave in two segments on both sides."

CURL_V="$(curl --version | head -1 | cut -d' ' -f1-2)"
capture toolkit-curl-expect toolkit-curl-expect.sh "" 18131 "$CURL_V with -H 'Expect: 100-continue' (one process per call)" "$SP_V WsgiApplication on wsgiref.simple_server (never sends 100 Continue)" \
  "curl POSTs a 1.5 KB SOAP envelope with Expect: 100-continue to spyne on wsgiref, which never answers 100: curl sends the headers, waits its 1 s expect timer, then sends the body; every call also opens its own connection (one curl process per call, HTTP/1.0 server)."
capture toolkit-curl-expect-fixed toolkit-curl-expect.sh --fixed 18132 "$CURL_V with -H 'Expect:' (one process per call)" "$SP_V WsgiApplication on wsgiref.simple_server" \
  "curl -H 'Expect:' POSTs the same 1.5 KB envelope: headers and body leave in one segment and nothing waits; still one connection per call."
capture toolkit-curl-soaplite-expect toolkit-curl-soaplite-expect.sh "" 18133 "$CURL_V with -H 'Expect: 100-continue', one process, one kept-alive connection (--next)" "$SL_V SOAP::Transport::HTTP::Daemon (HTTP::Daemon)" \
  "curl POSTs a 1.6 KB SOAP envelope with Expect: 100-continue to the SOAP::Lite daemon on one kept-alive connection (issue 14's example). HTTP::Daemon writes its 100 Continue in two pieces; from call 2 on Nagle holds the second until curl's delayed ACK, and only then does curl send the body: the Expect wait contains a Nagle hold, one wait, counted under expect_100_wait. The response (status line apart) is held by Nagle again."

AXIS_V="Apache Axis $(dpkg-query -W -f='${Version}' libaxis-java 2>/dev/null) on $(java -version 2>&1 | head -1 | tr -d '"')"
capture toolkit-axis toolkit-axis.sh "" 18141 "$AXIS_V, Call with default client config (HTTPSender)" "$GSOAP_V C++ server (SOAP_IO_KEEPALIVE)" \
  "Axis 1.4 Call with its default HTTPSender against a keep-alive gSOAP server: Axis sends POST ... HTTP/1.0 with Content-Length (headers and body in one segment here) and the server closes after each response, so every call opens its own connection. Call 1 includes JVM class loading."
capture toolkit-axis-fixed toolkit-axis.sh --fixed 18142 "$AXIS_V, Call with CommonsHTTPSender (commons-httpclient 3.1) and HTTP/1.1" "$GSOAP_V C++ server (SOAP_IO_KEEPALIVE)" \
  "Axis 1.4 Call with CommonsHTTPSender and HTTP_TRANSPORT_VERSION=HTTP/1.1: one kept-alive connection, chunked request bodies in one segment each. Call 1 includes JVM class loading."
