#!/usr/bin/env bash
# validate-fix.sh as a user runs it: --help on stdout with exit 0, no arguments
# is a usage error (2), and --before/--after/--port with the user's own command
# lines (here the curl Expect toolkit scenario, on a loopback port) captures
# both runs and judges the fix. The capture part needs root (tcpdump): skipped
# (77) otherwise.
# usage: validate_fix_test.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$1
vf="$here/validate-fix.sh"
fail() { echo "FAIL: $*"; exit 1; }

out=$(bash "$vf" --help 2>/dev/null); rc=$?
[ $rc -eq 0 ] || fail "--help exited $rc"
grep -q -- "--before CMD --after CMD --port P" <<<"$out" || fail "--help does not print the usage on stdout"
bash "$vf" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "no arguments exited $rc, not 2"
bash "$vf" --before true --after true >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--before/--after without --port exited $rc, not 2"
echo "ok: --help, usage errors"

[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: the capture needs root (tcpdump)"; exit 77; }
command -v tcpdump >/dev/null && command -v curl >/dev/null || { echo "SKIPPED: tcpdump or curl missing"; exit 77; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
tk="$here/toolkits/toolkit-curl-expect.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
STALLSCOPE_BUILD="$build" timeout 300 bash "$vf" --before "$tk --port $port --calls 3" \
    --after "$tk --fixed --port $port --calls 3" --port "$port" --out "$dir" --json \
    --expect-fixed expect_100_wait >/dev/null 2>"$dir/stderr"; rc=$?
[ $rc -eq 0 ] || { cat "$dir/stderr"; fail "validate-fix with --before/--after exited $rc"; }
python3 - "$dir/compare.json" <<'PY' || fail "compare report does not show the fix"
import json, sys
r = json.load(open(sys.argv[1]))
s = json.dumps(r)
assert '"expect_100_wait"' in s, "no expect_100_wait in the report"
preds = [p for p in r.get("predictions", []) if p.get("kind") == "expect_100_wait"]
assert preds and preds[0]["measured_median_ms"] < 100, preds
print("ok: expect_100_wait fixed, measured median %.2f ms" % preds[0]["measured_median_ms"])
PY
grep -q "tcp port $port" "$dir/commands.txt" || fail "commands.txt does not say what was captured"
echo "ok: --before/--after/--port"
