#!/usr/bin/env bash
# When the spill file cannot be written (here: a 1 KB file-size limit stands
# in for a full disk), analyze exits 1 with one line naming the capture and
# the spill file's problem, and writes no partial report.
# usage: spill_disk_full_test.sh CLI CAPTURE
set -uo pipefail
cli=$1 capture=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(
  trap '' XFSZ   # a write past the limit fails with EFBIG instead of killing
  ulimit -f 1
  TMPDIR="$dir" exec "$cli" analyze "$capture" --spill-after 0 --json -q
) >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; cat "$dir/err"; exit 1; }
grep -q "$(basename "$capture").*spill file in $dir: write failed" "$dir/err" ||
  { echo "FAIL: error does not name the capture and the spill file:"; cat "$dir/err"; exit 1; }
[ ! -s "$dir/out" ] || { echo "FAIL: a partial report was written"; exit 1; }
echo "spill disk full: ok ($(cat "$dir/err"))"
