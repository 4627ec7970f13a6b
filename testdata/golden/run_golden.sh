#!/usr/bin/env bash
# Runs one golden test: stallscope-cli analyze on a capture, compared with
# the expected output byte for byte. On a mismatch the actual output is left
# next to the expected one as <name>.actual and the diff is printed.
# usage: run_golden.sh CLI NAME [EXTRA_ARGS...]   (NAME from golden/manifest.txt;
#        EXTRA_ARGS go to analyze too, e.g. --spill-after 0: same expected output)
set -euo pipefail
cli=$1 name=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
line=$(awk -v n="$name" '$1 == n' "$here/manifest.txt")
[ -n "$line" ] || { echo "no golden test named $name"; exit 2; }
read -r _ capture opts <<<"$line"
expected="$here/$name.expected"
# One file per variant: ctest runs them in parallel.
variant=$(printf '%s' "$*" | tr -c 'A-Za-z0-9' '_')
actual="$here/$name.actual${variant:+.$variant}"
cd "$here/.."   # paths in reports are relative to testdata/
export TZ=UTC LC_ALL=C
# shellcheck disable=SC2086
"$cli" analyze "$capture" $opts --quiet "$@" >"$actual"
if cmp -s "$expected" "$actual"; then
  rm -f "$actual"
  echo "golden $name: ok"
else
  echo "golden $name: output differs from $expected"
  diff -u "$expected" "$actual" | head -60 || true
  exit 1
fi
