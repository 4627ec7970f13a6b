#!/usr/bin/env bash
# One command for the whole fix-validation loop: run a scenario as it is (BEFORE), run it again
# with the fixing setting (AFTER), both captured with tcpdump, then `stallscope-cli compare`.
#
#   validate-fix.sh PROFILE [--fix profile|nodelay|one-write|writev] [--op OP] [--size S] [--calls N]
#                   [--delack client|server|both] [--netns]
#   validate-fix.sh toolkit-SCENARIO[-keepalive] [--calls N]
#   validate-fix.sh --before CMD --after CMD --port P [--iface IF]
#       common: [--out DIR] [--build DIR] [--json] [--expect-fixed KIND]... [--expect-no-regression]
#
# --before/--after run your own toolkit: each CMD (a shell command line) runs the client and server
# as they are (BEFORE) and with the fix (AFTER); both are captured on IF (default lo), TCP port P.
#
# PROFILE is a reference-services profile (apache-soap, ms-soap, soaplite, xsoap, gsoap); BEFORE runs
# it unchanged, AFTER with --fix: `profile` (default) = PROFILE-fixed (every fix at once), `nodelay` =
# TCP_NODELAY on both sides, `one-write` / `writev` = each message in one write / one gather write.
# toolkit-SCENARIO is a real toolkit (toolkit-curl-expect, toolkit-zeep-spyne-keepalive,
# toolkit-soaplite-keepalive, toolkit-gsoap, toolkit-axis, ...); BEFORE runs its default (or
# --keepalive) mode, AFTER its --fixed mode.
# Leaves DIR/before.pcap, DIR/after.pcap, DIR/compare.txt (or .json) and DIR/commands.txt; exits with
# stallscope-cli compare's status (0 ok / every expectation met, 1 a failed expectation, 2 usage).
# Needs root (tcpdump) and the built binaries (STALLSCOPE_BUILD or --build): stallscope-cli, and for
# profiles stallscope-refserver and stallscope-refclient.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"

die() { echo "validate-fix: $*" >&2; exit 2; }
help_text() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
usage() { help_text >&2; exit 2; }

[ $# -ge 1 ] || usage
case "$1" in -h|--help) help_text; exit 0 ;; esac
target=custom
case "$1" in --*) ;; *) target="$1"; shift ;; esac
fix=profile op=getString size=200 calls=10 delack="" netns=0 json=0
before_cmd="" after_cmd="" user_port="" iface=lo
out="" build="${STALLSCOPE_BUILD:-$REPO/build}"
compare_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fix) fix="${2:?}"; shift 2 ;;
    --op) op="${2:?}"; shift 2 ;;
    --size) size="${2:?}"; shift 2 ;;
    --calls) calls="${2:?}"; shift 2 ;;
    --delack) delack="${2:?}"; shift 2 ;;
    --netns) netns=1; shift ;;
    --out) out="${2:?}"; shift 2 ;;
    --build) build="${2:?}"; shift 2 ;;
    --json) json=1; compare_args+=(--json); shift ;;
    --expect-fixed) compare_args+=(--expect-fixed "${2:?}"); shift 2 ;;
    --expect-no-regression) compare_args+=(--expect-no-regression); shift ;;
    --before) before_cmd="${2:?}"; shift 2 ;;
    --after) after_cmd="${2:?}"; shift 2 ;;
    --port) user_port="${2:?}"; shift 2 ;;
    --iface) iface="${2:?}"; shift 2 ;;
    -h|--help) help_text; exit 0 ;;
    *) die "unknown option '$1'" ;;
  esac
done
case "$fix" in profile|nodelay|one-write|writev) ;; *) die "--fix must be profile, nodelay, one-write or writev" ;; esac
case "$delack" in ""|client|server|both) ;; *) die "--delack must be client, server or both" ;; esac
[[ "$calls" =~ ^[0-9]+$ ]] && [ "$calls" -ge 1 ] && [ "$calls" -le 1000 ] || die "--calls must be 1..1000"
if [ "$target" = custom ]; then
  [ -n "$before_cmd" ] && [ -n "$after_cmd" ] && [ -n "$user_port" ] ||
    die "give a PROFILE, a toolkit-SCENARIO, or all of --before CMD --after CMD --port P (--help)"
  [[ "$user_port" =~ ^[0-9]+$ ]] && [ "$user_port" -ge 1 ] && [ "$user_port" -le 65535 ] || die "--port must be 1..65535"
elif [ -n "$before_cmd$after_cmd$user_port" ]; then
  die "--before/--after/--port replace PROFILE or toolkit-SCENARIO; give one or the other"
fi
CLI="$build/app/cli/stallscope-cli"
[ -x "$CLI" ] || die "$CLI not found (build it, and set STALLSCOPE_BUILD or --build)"
[ "$(id -u)" -eq 0 ] || die "needs root for tcpdump"
out="${out:-$(pwd)/validate-$target-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
: >"$out/commands.txt"
log() { echo "validate-fix: $*" >&2; }

run_profile() {  # NAME EXTRA-SERVER-ARGS EXTRA-CLIENT-ARGS PROFILE
  local name=$1 sargs=$2 cargs=$3 prof=$4
  local cmd=("$HERE/run-scenario.sh" --out "$out/$name" --profile "$prof" --op "$op" --size "$size" --calls "$calls"
             --build "$build" --server-args "$sargs" --client-args "$cargs" --description "validate-fix.sh $name")
  [ "$netns" = 1 ] && cmd+=(--netns)
  printf '%q ' "${cmd[@]}" >>"$out/commands.txt"; echo >>"$out/commands.txt"
  log "$name: $prof ${sargs:+server $sargs }${cargs:+client $cargs}"
  "${cmd[@]}" 2>"$out/$name.run.log" || { cat "$out/$name.run.log" >&2; die "$name run failed"; }
}

# A free loopback port in 30000-39999 (bounded tries; nothing is sent to it).
pick_port() {
  python3 - <<'PY'
import random, socket, sys
for _ in range(200):
    p = random.randint(30000, 39999)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); sys.exit(0)
    except OSError:
        pass
    finally:
        s.close()
sys.exit("no free port in 30000-39999")
PY
}

TCPDUMP=""
cleanup() { [ -n "$TCPDUMP" ] && kill -TERM "$TCPDUMP" 2>/dev/null; [ -n "$TCPDUMP" ] && wait "$TCPDUMP" 2>/dev/null; true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

run_toolkit() {  # NAME SCRIPT MODE-FLAG
  local name=$1 script=$2 mode=$3 port
  port="$(pick_port)"
  local cmd=("$HERE/toolkits/$script" ${mode:+"$mode"} --port "$port" --calls "$calls")
  capture_run "$name" lo "$port" "${cmd[@]}"
}

run_user() {  # NAME CMD: the user's own client and server, captured on $iface port $user_port
  capture_run "$1" "$iface" "$user_port" bash -c "$2"
}

capture_run() {  # NAME IFACE PORT CMD... : CMD runs while tcpdump writes NAME.pcap
  local name=$1 ifc=$2 port=$3 i rc=0
  shift 3
  local cmd=("$@")
  printf '%q ' "${cmd[@]}" >>"$out/commands.txt"; echo " (tcpdump -i $ifc tcp port $port)" >>"$out/commands.txt"
  log "$name: ${cmd[*]#$REPO/}"
  rm -f "$out/$name.pcap"
  tcpdump -i "$ifc" -U -Z root -s 0 -w "$out/$name.pcap" "tcp port $port" 2>"$out/$name.tcpdump.log" &
  TCPDUMP=$!
  for i in $(seq 1 100); do grep -q "listening on" "$out/$name.tcpdump.log" && break; sleep 0.1; done
  grep -q "listening on" "$out/$name.tcpdump.log" || die "tcpdump did not start: $(cat "$out/$name.tcpdump.log")"
  sleep 0.5   # "listening on" comes a moment before packets are really delivered
  TK_TIMEOUT_S=120 timeout 600 "${cmd[@]}" >"$out/$name.client.jsonl" 2>"$out/$name.run.log" || rc=$?
  sleep 1     # the last FIN/ACKs
  kill -TERM "$TCPDUMP"; wait "$TCPDUMP" 2>/dev/null || true; TCPDUMP=""
  [ $rc -eq 0 ] || { cat "$out/$name.run.log" >&2; die "$name run failed (rc $rc)"; }
  grep -q "^0 packets dropped by kernel" "$out/$name.tcpdump.log" || log "WARNING: tcpdump dropped packets in $name"
}

case "$target" in
  custom)
    run_user before "$before_cmd"
    run_user after "$after_cmd"
    ;;
  toolkit-*)
    scenario="${target#toolkit-}" mode=""
    case "$scenario" in *-keepalive) scenario="${scenario%-keepalive}" mode=--keepalive ;; esac
    script="toolkit-$scenario.sh"
    [ -x "$HERE/toolkits/$script" ] || die "no toolkit scenario $script under reference-services/toolkits"
    run_toolkit before "$script" "$mode"
    run_toolkit after "$script" --fixed
    ;;
  *)
    [ -x "$build/reference-services/stallscope-refserver" ] || die "stallscope-refserver not built under $build"
    sd="" cd_=""
    case "$delack" in "") ;; server) sd=--delack ;; client) cd_=--delack ;; both) sd=--delack cd_=--delack ;;
      *) die "--delack must be client, server or both" ;; esac
    run_profile before "$sd" "$cd_" "$target"
    case "$fix" in
      profile) run_profile after "$sd" "$cd_" "$target-fixed" ;;
      nodelay) run_profile after "$sd --nodelay on" "$cd_ --nodelay on" "$target" ;;
      one-write) run_profile after "$sd --write one" "$cd_ --write one" "$target" ;;
      writev) run_profile after "$sd --write writev" "$cd_ --write writev" "$target" ;;
      *) die "--fix must be profile, nodelay, one-write or writev" ;;
    esac
    ;;
esac

report="$out/compare.$([ "$json" = 1 ] && echo json || echo txt)"
echo "$CLI compare $out/before.pcap $out/after.pcap ${compare_args[*]}" >>"$out/commands.txt"
rc=0
"$CLI" compare "$out/before.pcap" "$out/after.pcap" "${compare_args[@]}" --quiet -o "$report" || rc=$?
cat "$report"
log "captures, logs and the report are in $out (exit $rc)"
exit $rc
