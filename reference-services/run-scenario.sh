#!/usr/bin/env bash
# Runs one reference scenario with capture on: tcpdump, stallscope-refserver, stallscope-refclient.
# Writes OUT.pcap, OUT.client.jsonl and OUT.label.json.
#
#   run-scenario.sh --profile NAME --op OP --calls N [--size S] --out DIR/NAME
#                   [--server-args "..."] [--client-args "..."] [--netns]
#                   [--description TEXT] [--pathologies JSON] [--build DIR] [--timeout-s S]
#                   [--tls 1.2|1.3 [--tls-cert-names N]]
#
# --tls: HTTPS with a test CA made at run time (https/make-test-ca.sh; --tls-cert-names N pads the leaf
# with N names to grow the certificate flight). The client writes the NSS key log to OUT.keys; the
# capture with the secrets embedded (editcap --inject-secrets) is OUT.keyed.pcapng; OUT.pcap has none.
#                   [--path-delay ONE_WAY_MS [--path-jitter MS] [--server-point-only]]
#
# --netns: server and client in two fresh network namespaces joined by a veth pair (MTU 1500,
# 10.213.x.{1,2}/24 inside the namespaces only), captured on the server's veth; the namespaces are
# always deleted on exit. Falls back to loopback (with a message) when namespaces are not allowed.
#
# --path-delay: client, a middle router and server in three namespaces joined by two user-space delay
# links (delay-path.sh; ONE_WAY_MS/2 each, plus up to --path-jitter, default 0.4 ms, in all), and the
# same run captured at once at the client, on the middle hop and at the server: OUT.client.pcap,
# OUT.middle.pcap, OUT.server.pcap instead of OUT.pcap (--server-point-only: only the server's, as
# OUT.pcap). Names start with $STALLSCOPE_NETNS_PREFIX
# (default "stallscope"). No fallback: without namespaces it fails.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
# The exact command, minus the label-only texts (--description, --pathologies) that do not change the capture.
made_by_args=("$0")
skip=0
for a in "$@"; do
  if [ "$skip" = 1 ]; then skip=0; continue; fi
  case "$a" in --description|--pathologies) skip=1; continue ;; esac
  made_by_args+=("$a")
done
MADE_BY="$(printf '%q ' "${made_by_args[@]}")"; MADE_BY="${MADE_BY% }"

profile="" op="" calls="" size=10 out="" server_args="" client_args="" netns=0
tls="" tls_cert_names=0 description="" pathologies="{}" build="${STALLSCOPE_BUILD:-$REPO/build}" timeout_s=10 server_profile="" client_profile=""
path_delay="" path_jitter=0.4 server_point_only=0
die() { echo "run-scenario: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile="${2:?}"; shift 2 ;;
    --server-profile) server_profile="${2:?}"; shift 2 ;;
    --client-profile) client_profile="${2:?}"; shift 2 ;;
    --op) op="${2:?}"; shift 2 ;;
    --calls) calls="${2:?}"; shift 2 ;;
    --size) size="${2:?}"; shift 2 ;;
    --out) out="${2:?}"; shift 2 ;;
    --server-args) server_args="${2?}"; shift 2 ;;
    --client-args) client_args="${2?}"; shift 2 ;;
    --netns) netns=1; shift ;;
    --tls) tls="${2:?}"; shift 2 ;;
    --tls-cert-names) tls_cert_names="${2:?}"; shift 2 ;;
    --description) description="${2?}"; shift 2 ;;
    --pathologies) pathologies="${2?}"; shift 2 ;;
    --build) build="${2:?}"; shift 2 ;;
    --timeout-s) timeout_s="${2:?}"; shift 2 ;;
    --path-delay) path_delay="${2:?}"; shift 2 ;;
    --path-jitter) path_jitter="${2:?}"; shift 2 ;;
    --server-point-only) server_point_only=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) die "unknown option '$1'" ;;
  esac
done
[ -n "$profile" ] || die "--profile is required"
[ -n "$op" ] || die "--op is required"
[ -n "$calls" ] || die "--calls is required"
[ -n "$out" ] || die "--out is required"
server_profile="${server_profile:-$profile}"
client_profile="${client_profile:-$profile}"
SERVER_BIN="$build/reference-services/stallscope-refserver"
CLIENT_BIN="$build/reference-services/stallscope-refclient"
[ -x "$SERVER_BIN" ] && [ -x "$CLIENT_BIN" ] || die "binaries not found under $build/reference-services (set STALLSCOPE_BUILD or --build)"
command -v tcpdump >/dev/null || die "tcpdump not installed"
mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
work="$(mktemp -d /tmp/stallscope-scenario.XXXXXX)"

# shellcheck source=delay-path.sh
. "$HERE/delay-path.sh"
tcpdump_pids="" server_pid="" ns_srv="" ns_cli=""
cleanup() {
  local p
  [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null || true
  for p in $tcpdump_pids; do kill -INT "$p" 2>/dev/null || true; done
  [ -n "$server_pid" ] && wait "$server_pid" 2>/dev/null || true
  for p in $tcpdump_pids; do wait "$p" 2>/dev/null || true; done
  [ -n "$ns_srv" ] && ip netns del "$ns_srv" 2>/dev/null || true
  [ -n "$ns_cli" ] && ip netns del "$ns_cli" 2>/dev/null || true
  delay_path_down
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A port in 20000-29999 nobody listens on (bounded number of tries).
pick_port() {
  python3 - <<'PY'
import random, socket, sys
for _ in range(200):
    p = random.randint(20000, 29999)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); sys.exit(0)
    except OSError:
        pass
    finally:
        s.close()
sys.exit("no free port in 20000-29999")
PY
}

# Waits (bounded) until file $1 contains text $2.
wait_for_text() {
  local i
  for i in $(seq 1 100); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

transport="loopback"
srv_exec=() cli_exec=() iface="lo" host="127.0.0.1" bind="127.0.0.1"
# Capture points: "NAME NETNS IFACE" (NAME "" = the single OUT.pcap).
points=("- - lo")
if [ -n "$path_delay" ]; then
  [ "$netns" = 0 ] || die "--netns and --path-delay are two different topologies; choose one"
  prefix="${STALLSCOPE_NETNS_PREFIX:-stallscope}"
  delay_path_up "$prefix" $$ "$path_delay" "$path_jitter" "$build/reference-services/stallscope-delaylink" ||
    die "could not build the delayed path (root, ip netns and /dev/net/tun are needed)"
  transport="netns-path-delay-${path_delay}ms-jitter-${path_jitter}ms"
  srv_exec=(ip netns exec "$DP_NS_SRV") cli_exec=(ip netns exec "$DP_NS_CLI")
  host="$DP_SERVER_IP" bind="$DP_SERVER_IP"
  points=("client $DP_NS_CLI $DP_C_DEV" "middle $DP_NS_MID $DP_M_CDEV" "server $DP_NS_SRV $DP_S_DEV")
  # --server-point-only: one capture, at the server, as OUT.pcap (the HTTPS captures' layout).
  [ "$server_point_only" = 0 ] || points=("- $DP_NS_SRV $DP_S_DEV")
elif [ "$netns" = 1 ]; then
  id=$$
  x=$(( id % 250 + 1 ))
  # STALLSCOPE_NETNS_PREFIX names everything this run creates (helpers sharing a machine use their own).
  prefix="${STALLSCOPE_NETNS_PREFIX:-}"
  if [ -n "$prefix" ]; then
    ns_srv="$prefix-srv-$id" ns_cli="$prefix-cli-$id"
    vs="${prefix:0:8}s$(( id % 100000 ))" vc="${prefix:0:8}c$(( id % 100000 ))"
  else
    ns_srv="stallscope-srv-$id" ns_cli="stallscope-cli-$id"
    vs="ssvs$id" vc="ssvc$id"
  fi
  if ip netns add "$ns_srv" 2>/dev/null && ip netns add "$ns_cli" 2>/dev/null &&
     ip link add "$vs" type veth peer name "$vc" 2>/dev/null &&
     ip link set "$vs" netns "$ns_srv" && ip link set "$vc" netns "$ns_cli" &&
     ip -n "$ns_srv" link set "$vs" mtu 1500 up && ip -n "$ns_cli" link set "$vc" mtu 1500 up &&
     ip -n "$ns_srv" link set lo up && ip -n "$ns_cli" link set lo up &&
     ip -n "$ns_srv" addr add "10.213.$x.1/24" dev "$vs" && ip -n "$ns_cli" addr add "10.213.$x.2/24" dev "$vc"; then
    # One MSS per packet as on a real wire: veth passes GSO super-segments (up to 64 KB) otherwise.
    ip -n "$ns_srv" link set "$vs" gso_max_segs 1 2>/dev/null || echo "run-scenario: could not limit GSO on $vs" >&2
    ip -n "$ns_cli" link set "$vc" gso_max_segs 1 2>/dev/null || echo "run-scenario: could not limit GSO on $vc" >&2
    transport="netns-veth-mtu1500"
    srv_exec=(ip netns exec "$ns_srv") cli_exec=(ip netns exec "$ns_cli")
    iface="$vs" host="10.213.$x.1" bind="10.213.$x.1"
    points=("- $ns_srv $vs")
    # Let the veth carrier come up before the first SYN.
    for i in $(seq 1 50); do
      ip netns exec "$ns_cli" ping -c1 -W1 "$host" >/dev/null 2>&1 && break
      sleep 0.1
    done
  else
    echo "run-scenario: network namespaces not allowed here; falling back to loopback" >&2
    ip netns del "$ns_srv" 2>/dev/null || true; ip netns del "$ns_cli" 2>/dev/null || true
    ns_srv="" ns_cli=""
  fi
fi

scheme="http"
if [ -n "$tls" ]; then
  command -v editcap >/dev/null || die "--tls needs editcap (wireshark-common) to embed the key log"
  "$HERE/https/make-test-ca.sh" "$work/ca" --big "$tls_cert_names" || die "could not make the test CA"
  rm -f "$out.keys"
  server_args="$server_args --tls $tls --cert $work/ca/server.pem --key $work/ca/server.key"
  client_args="$client_args --tls $tls --cacert $work/ca/ca.pem --keylog $out.keys"
  scheme="https"
fi

port="$(pick_port)"
pcaps=()
for point in "${points[@]}"; do
  read -r pname pns piface <<<"$point"
  if [ "$pname" = - ]; then pcap="$out.pcap"; else pcap="$out.$pname.pcap"; fi
  pcaps+=("$pcap")
  rm -f "$pcap"
  pexec=()
  [ "$pns" = - ] || pexec=(ip netns exec "$pns")
  # --immediate-mode: without it libpcap hands packets over per 1 s block and a short run loses them all on SIGINT.
  # -B 32768 (KiB): with immediate mode the default 2 MB ring drops packets of a 40 KB burst on veth.
  "${pexec[@]}" tcpdump -i "$piface" --immediate-mode -B 32768 -U -Z root -s 0 -w "$pcap" "tcp port $port" \
    2>"$work/tcpdump.$pname.err" &
  tcpdump_pids="$tcpdump_pids $!"
  wait_for_text "$work/tcpdump.$pname.err" "listening on" || die "tcpdump did not start: $(cat "$work/tcpdump.$pname.err")"
done

# shellcheck disable=SC2206
server_cmd=("$SERVER_BIN" --profile "$server_profile" --port "$port" --bind "$bind" --max-seconds 120 $server_args)
"${srv_exec[@]}" "${server_cmd[@]}" >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
wait_for_text "$work/server.out" "listening on" || die "server did not start: $(cat "$work/server.err")"

# shellcheck disable=SC2206
client_cmd=("$CLIENT_BIN" --profile "$client_profile" --url "$scheme://$host:$port/soap" --op "$op" --calls "$calls"
            --size "$size" --timeout-s "$timeout_s" $client_args)
client_rc=0
"${cli_exec[@]}" "${client_cmd[@]}" >"$out.client.jsonl" 2>"$work/client.err" || client_rc=$?

# Let the last FIN/ACKs reach every capture (they cross the delayed path too).
sleep "$(python3 -c "print(0.2 + 2 * ${path_delay:-0} / 1000)")"
kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""
sleep "$(python3 -c "print(2 * ${path_delay:-0} / 1000)")"
for p in $tcpdump_pids; do kill -INT "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; tcpdump_pids=""
for f in "$work"/tcpdump.*.err; do
  dropped="$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$f")"
  [ "${dropped:-0}" = 0 ] || echo "run-scenario: WARNING: tcpdump dropped $dropped packets ($f); the capture is incomplete" >&2
done
path_json="null"
[ -n "$path_delay" ] && [ "$server_point_only" = 1 ] && path_json="{\"one_way_ms\": $path_delay, \"jitter_ms\": $path_jitter, \"round_trip_ms\": $(python3 -c "print(2 * $path_delay)"), \"links\": \"two delay links of one_way_ms/2, client-middle and middle-server\", \"captures\": {\"server\": \"at the server (its TUN end), 0 ms from the server: NAME.pcap\"}}"
[ -n "$path_delay" ] && [ "$server_point_only" = 0 ] && path_json="{\"one_way_ms\": $path_delay, \"jitter_ms\": $path_jitter, \"round_trip_ms\": $(python3 -c "print(2 * $path_delay)"), \"links\": \"two delay links of one_way_ms/2, client-middle and middle-server\", \"captures\": {\"client\": \"at the client (its TUN end), 0 ms from the client\", \"middle\": \"on the middle router, one_way_ms/2 from each end\", \"server\": \"at the server (its TUN end), 0 ms from the server\"}}"

if [ -n "$tls" ]; then
  editcap --inject-secrets "tls,$out.keys" "$pcap" "$out.keyed.pcapng" || die "editcap --inject-secrets failed"
fi

name="$(basename "$out")"
TLS="$tls" TLS_CERT_NAMES="$tls_cert_names" WORK="$work" NAME="$name" MADE_BY="$MADE_BY" DESCRIPTION="$description" TRANSPORT="$transport" PATHOLOGIES="$pathologies" \
CLIENT_CMD="${client_cmd[*]}" SERVER_CMD="${server_cmd[*]}" BUILD="$build" CLIENT_ERR="$work/client.err" \
SERVER_ERR="$work/server.err" JSONL="$out.client.jsonl" CALLS="$calls" REPO="$REPO" PATH_JSON="$path_json" \
python3 - >"$out.label.json" <<'PY'
import json, os, re
rows = [json.loads(l) for l in open(os.environ["JSONL"]) if l.strip()]
cerr = open(os.environ["CLIENT_ERR"]).read()
m = re.search(r"http=(1\.[01])", cerr)
def rel(cmd):  # paths relative to the repo / build dir so labels do not depend on the checkout
    cmd = cmd.replace(os.environ["WORK"] + "/", "<tmp>/")
    return cmd.replace(os.environ["BUILD"].rstrip("/") + "/", "<build>/").replace(os.environ["REPO"] + "/", "")
label = {
    "name": os.environ["NAME"],
    "made_by": rel(os.environ["MADE_BY"]),
    "regenerate": ("reference-services/make-path-testdata.sh " if os.environ["PATH_JSON"] != "null"
                   else "reference-services/make-testdata.sh ") + os.environ["NAME"],
    "description": os.environ["DESCRIPTION"],
    "transport": os.environ["TRANSPORT"],
    "client": rel(os.environ["CLIENT_CMD"]),
    "server": rel(os.environ["SERVER_CMD"]),
    "client_knobs": cerr.splitlines()[0].split(": ", 2)[-1] if cerr else "",
    "server_knobs": open(os.environ["SERVER_ERR"]).read().splitlines()[0].split(": ", 2)[-1],
    "calls": int(os.environ["CALLS"]),
    "calls_ok": sum(1 for r in rows if r.get("ok")),
    "connections": max((r.get("connection", 0) for r in rows), default=0),
    "http_version": m.group(1) if m else "",
    "client_latencies_ms": [r["latency_ms"] for r in rows],
    "pathologies": json.loads(os.environ["PATHOLOGIES"]),
}
if os.environ["TLS"]:
    label["tls"] = {"version": os.environ["TLS"], "key_log": os.environ["NAME"] + ".keys",
                    "keyed_capture": os.environ["NAME"] + ".keyed.pcapng",
                    "keyless_capture": os.environ["NAME"] + ".pcap",
                    "certificate_padding_names": int(os.environ["TLS_CERT_NAMES"]),
                    "resumed_connections": sum(1 for r in rows if r.get("tls_resumed")),
                    "full_handshakes": sum(1 for r in rows if r.get("tls_resumed") is False)}
if os.environ["PATH_JSON"] != "null":
    label["path"] = json.loads(os.environ["PATH_JSON"])
print(json.dumps(label, indent=2))
PY
cat "$work/client.err" >&2
for pcap in "${pcaps[@]}"; do
  echo "run-scenario: $transport, wrote $pcap ($(stat -c %s "$pcap") bytes)" >&2
done
echo "run-scenario: wrote $out.client.jsonl, $out.label.json" >&2
exit "$client_rc"
