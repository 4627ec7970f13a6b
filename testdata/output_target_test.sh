#!/usr/bin/env bash
# -o FILE must not replace what FILE is: a FIFO (like /dev/null or a pipe a
# script reads) is written to directly and stays a FIFO; a regular file gets
# the whole report, and no FILE.tmp is left behind.
# usage: output_target_test.sh CLI CAPTURE
set -euo pipefail
cli=$1 capture=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/fifo"
# Bounded: if the FIFO were renamed away the reader would wait forever.
timeout 30 sh -c 'cat <"$1" >"$2"' reader "$dir/fifo" "$dir/from-fifo" &
reader=$!
timeout 30 "$cli" analyze "$capture" --json -q -o "$dir/fifo"
wait "$reader" || { echo "FAIL: nothing read from the FIFO (it was replaced?)"; exit 1; }
[ -p "$dir/fifo" ] || { echo "FAIL: -o replaced the FIFO with a regular file"; exit 1; }
"$cli" analyze "$capture" --json -q -o "$dir/report.json"
cmp "$dir/from-fifo" "$dir/report.json" || { echo "FAIL: FIFO and file reports differ"; exit 1; }
[ ! -e "$dir/report.json.tmp" ] || { echo "FAIL: report.json.tmp left behind"; exit 1; }
grep -q '"calls"' "$dir/report.json" || { echo "FAIL: no report in the file"; exit 1; }
echo "output targets: ok"
