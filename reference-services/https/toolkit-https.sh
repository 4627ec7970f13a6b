#!/usr/bin/env bash
# Real HTTP clients over TLS against the reference server (stallscope-refserver --tls, xsoap-like
# server: Nagle on, response headers and body in two records, keep-alive), captured on loopback.
# The server writes the NSS key log (the same secrets the client has), so every client works alike.
#
#   toolkit-https.sh CLIENT --out DIR/NAME [--tls 1.2|1.3] [--calls N]
#     CLIENT: curl-percall   one curl process per call (a full TLS handshake each time, --cacert)
#             curl-keepalive one curl process, N URLs on one connection
#             requests       python3-requests Session (urllib3, keep-alive)
#             soaplite       SOAP::Lite over LWP + IO::Socket::SSL (Connection: close: one connection per call)
#             gsoap          gSOAP 2.8 C++ client over libgsoapssl++ (OpenSSL; soap_new(): Connection: close,
#                            one connection and a full handshake per call: gSOAP keeps no TLS session)
#             gsoap-keepalive the same with SOAP_IO_KEEPALIVE: one connection for every call
# Writes NAME.pcap, NAME.keys, NAME.keyed.pcapng, NAME.client.jsonl, NAME.label.json (calls, handshakes
# and stalls from tls_wirecheck.py; the label's "pathologies" are what the wire showed, not a design).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
build="${STALLSCOPE_BUILD:-$REPO/build}"
client="${1:?usage: toolkit-https.sh CLIENT --out DIR/NAME [--tls 1.2|1.3] [--calls N]}"; shift
out="" tls=1.3 calls=3 description=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="${2:?}"; shift 2 ;;
    --tls) tls="${2:?}"; shift 2 ;;
    --calls) calls="${2:?}"; shift 2 ;;
    --description) description="${2?}"; shift 2 ;;
    *) echo "toolkit-https: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "toolkit-https: --out is required" >&2; exit 2; }
[[ "$calls" =~ ^[0-9]+$ ]] && [ "$calls" -ge 1 ] && [ "$calls" -le 50 ] || { echo "toolkit-https: --calls 1..50" >&2; exit 2; }
mkdir -p "$(dirname "$out")"; out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
work="$(mktemp -d /tmp/tlsfield-toolkit.XXXXXX)"
tcpdump_pid="" server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  [ -n "$tcpdump_pid" ] && kill -INT "$tcpdump_pid" 2>/dev/null && wait "$tcpdump_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
wait_for_text() { local i; for i in $(seq 1 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; return 1; }

"$HERE/make-test-ca.sh" "$work/ca"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
rm -f "$out.pcap" "$out.keys"
tcpdump -i lo --immediate-mode -B 32768 -U -Z root -s 0 -w "$out.pcap" "tcp port $port" 2>"$work/tcpdump.err" &
tcpdump_pid=$!
wait_for_text "$work/tcpdump.err" "listening on" || { echo "toolkit-https: tcpdump did not start" >&2; exit 1; }
server_cmd=("$build/reference-services/stallscope-refserver" --profile xsoap --port "$port" --max-seconds 120
            --tls "$tls" --cert "$work/ca/server.pem" --key "$work/ca/server.key" --keylog "$out.keys")
"${server_cmd[@]}" >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
wait_for_text "$work/server.out" "listening on" || { echo "toolkit-https: server did not start: $(cat "$work/server.err")" >&2; exit 1; }

host=refsvc.stallscope.test
url="https://$host:$port/soap"
envelope="$work/request.xml"
printf '%s' '<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body><ns1:getString xmlns:ns1="urn:stallscope-refsvc"><size>200</size></ns1:getString></SOAP-ENV:Body></SOAP-ENV:Envelope>' >"$envelope"
curl_args=(-sS --max-time 20 --cacert "$work/ca/ca.pem" --resolve "$host:$port:127.0.0.1"
           -H 'Content-Type: text/xml; charset=utf-8' -H 'SOAPAction: "urn:stallscope-refsvc#getString"' --data-binary @"$envelope")
case "$client" in
  curl-percall)
    tool="curl $(curl --version | head -1 | cut -d' ' -f2) (one process per call, --cacert)"
    for i in $(seq 1 "$calls"); do
      t=$(curl "${curl_args[@]}" -o "$work/resp.xml" -w '%{http_code} %{time_total}' "$url")
      [ "${t% *}" = 200 ] && grep -q getStringResponse "$work/resp.xml" || { echo "toolkit-https: curl call $i failed ($t)" >&2; exit 1; }
      awk -v i="$i" -v s="${t#* }" 'BEGIN { printf "{\"call\":%d,\"latency_ms\":%.3f}\n", i, s * 1000 }'
    done >"$out.client.jsonl" ;;
  curl-keepalive)
    tool="curl $(curl --version | head -1 | cut -d' ' -f2) (one process, $calls URLs on one connection)"
    urls=(); for i in $(seq 1 "$calls"); do urls+=(-o /dev/null "$url"); done
    curl "${curl_args[@]}" -w '%{http_code} %{time_total}\n' "${urls[@]}" >"$work/curl.out"
    awk '$1 != 200 { exit 1 } { printf "{\"call\":%d,\"latency_ms\":%.3f}\n", NR, $2 * 1000 }' "$work/curl.out" >"$out.client.jsonl" \
      || { echo "toolkit-https: curl failed: $(cat "$work/curl.out")" >&2; exit 1; } ;;
  requests)
    tool="python3-requests $(/usr/bin/python3 -c 'import requests; print(requests.__version__)') Session (urllib3 $(/usr/bin/python3 -c 'import urllib3; print(urllib3.__version__)'))"
    /usr/bin/python3 - "$url" "$calls" "$envelope" "$work/ca/ca.pem" "$port" >"$out.client.jsonl" <<'PY'
import json, sys, time, requests
from urllib3.util import connection
url, calls, env, ca, port = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], "rb").read(), sys.argv[4], sys.argv[5]
orig = connection.create_connection
connection.create_connection = lambda addr, *a, **k: orig(("127.0.0.1", addr[1]), *a, **k)  # the name on loopback
s = requests.Session()
for i in range(1, calls + 1):
    t0 = time.monotonic()
    r = s.post(url, data=env, verify=ca, timeout=20,
               headers={"Content-Type": "text/xml; charset=utf-8", "SOAPAction": '"urn:stallscope-refsvc#getString"'})
    t1 = time.monotonic()
    if r.status_code != 200 or b"getStringResponse" not in r.content:
        sys.exit(f"call {i} failed: HTTP {r.status_code}")
    print(json.dumps({"call": i, "latency_ms": round((t1 - t0) * 1000, 3)}))
PY
    ;;
  soaplite)
    tool="SOAP::Lite $(perl -MSOAP::Lite -e 'print $SOAP::Lite::VERSION') (LWP, IO::Socket::SSL $(perl -MIO::Socket::SSL -e 'print $IO::Socket::SSL::VERSION'))"
    perl - "$url" "$calls" "$work/ca/ca.pem" "$port" >"$out.client.jsonl" <<'PL'
use strict; use warnings;
use SOAP::Lite; use IO::Socket::SSL; use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);
my ($url, $calls, $ca, $port) = @ARGV;
# The certificate's name on loopback: connect to 127.0.0.1, check the name refsvc.stallscope.test.
(my $addr_url = $url) =~ s/refsvc\.stallscope\.test/127.0.0.1/;
my $soap = SOAP::Lite->uri('urn:stallscope-refsvc')->proxy($addr_url, timeout => 20,
  ssl_opts => { SSL_ca_file => $ca, verify_hostname => 1, SSL_hostname => 'refsvc.stallscope.test',
                SSL_verifycn_name => 'refsvc.stallscope.test' });
$| = 1;
for my $i (1 .. $calls) {
  my $t0 = clock_gettime(CLOCK_MONOTONIC);
  my $res = $soap->getString(SOAP::Data->name(size => 200)->type('int'));
  my $t1 = clock_gettime(CLOCK_MONOTONIC);
  die "call $i failed: " . ($res && $res->fault ? $res->faultstring : $soap->transport->status) . "\n" if !$res || $res->fault;
  die "call $i: wrong answer\n" unless length($res->result // '') == 200;
  printf "{\"call\":%d,\"latency_ms\":%.3f}\n", $i, ($t1 - $t0) * 1000;
}
PL
    ;;
  gsoap|gsoap-keepalive)
    gbuild="${STALLSCOPE_TOOLKIT_BUILD:-/work/build-toolkits}/gsoap-tls"
    "$REPO/reference-services/toolkits/gsoap-tls/build.sh" "$gbuild" >&2
    mode=""; [ "$client" = gsoap-keepalive ] && mode=keepalive
    tool="gSOAP $(dpkg-query -W -f '${Version}' gsoap 2>/dev/null | cut -d- -f1) C++ client (libgsoapssl++, OpenSSL${mode:+, SOAP_IO_KEEPALIVE})"
    # The client writes its own key log (SSL_CTX_set_keylog_callback on soap->ctx, as docs/https.md
    # advises gSOAP users); it must hold the same secrets as the server's.
    SSLKEYLOGFILE="$work/client.keys" timeout 60 "$gbuild/gsoap-tls-client" "https://127.0.0.1:$port/soap" "$calls" 200 \
      "$work/ca/ca.pem" $mode >"$out.client.jsonl" || { echo "toolkit-https: the gSOAP client failed" >&2; exit 1; }
    cmp -s <(sort "$work/client.keys") <(sort "$out.keys") \
      || { echo "toolkit-https: the gSOAP client's key log differs from the server's" >&2; exit 1; } ;;
  *) echo "toolkit-https: unknown client $client" >&2; exit 2 ;;
esac
sleep 0.3
kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
kill -INT "$tcpdump_pid"; wait "$tcpdump_pid" 2>/dev/null || true; tcpdump_pid=""
editcap --inject-secrets "tls,$out.keys" "$out.pcap" "$out.keyed.pcapng"
name="$(basename "$out")"
NAME="$name" TOOL="$tool" TLS="$tls" DESC="$description" JSONL="$out.client.jsonl" CLIENT="$client" CALLS="$calls" \
python3 - >"$out.label.json" <<'PY'
import json, os
rows = [json.loads(l) for l in open(os.environ["JSONL"]) if l.strip()]
n = os.environ["NAME"]
print(json.dumps({
    "name": n, "made_by": f"reference-services/https/toolkit-https.sh {os.environ['CLIENT']} --out testdata/{n} --tls {os.environ['TLS']} --calls {os.environ['CALLS']}",
    "description": os.environ["DESC"], "transport": "loopback",
    "client": os.environ["TOOL"], "server": "stallscope-refserver --profile xsoap --tls " + os.environ["TLS"] + " (writes the key log)",
    "calls": int(os.environ["CALLS"]), "calls_ok": len(rows), "client_latencies_ms": [r["latency_ms"] for r in rows],
    "tls": {"version": os.environ["TLS"], "key_log": n + ".keys", "keyed_capture": n + ".keyed.pcapng", "keyless_capture": n + ".pcap"},
}, indent=2))
PY
echo "toolkit-https: wrote $out.pcap ($(stat -c %s "$out.pcap") bytes)" >&2
