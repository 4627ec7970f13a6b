#!/usr/bin/env bash
# Every report a speed change must leave byte-identical, written by one binary
# into OUTDIR: text and --json of every capture in testdata/ (keyed HTTPS
# fixtures also with their key log), the public corpus (text, --json, 2
# threads), and any bench captures given (text, --json, --csv, 1 and 2
# threads; a -https.pcap twin with its .keys, 1 and 2 threads). Stdout, stderr and exit code
# each go to a file. Run it with the binary before and after a change and
# compare:  diff -r BEFORE AFTER   (docs/performance.md, "How to measure").
#
#   scripts/perf/same-reports.sh BIN OUTDIR [BENCH.pcap ...]
#   CORPUS=DIR (default: ../shared/corpus beside the checkout)
set -u
[ $# -ge 2 ] || { echo "usage: $0 BIN OUTDIR [BENCH.pcap ...]" >&2; exit 2; }
BIN=$(realpath "$1"); OUT=$(realpath -m "$2"); shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${CORPUS:-$top/../shared/corpus}
mkdir -p "$OUT"
export TZ=UTC LC_ALL=C
run() {  # name, then analyze's arguments
  local name=$1; shift
  "$BIN" analyze "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"; echo $? >"$OUT/$name.rc"
}
cd "$top/testdata"
find . -name '*.pcap*' | sort | while read -r f; do
  n=$(echo "${f#./}" | tr '/' '_')
  run "td_$n.txt" "$f" -q
  run "td_$n.json" "$f" --json -q
  k="${f%.pcap*}.keys"
  if [ -f "$k" ]; then run "td_$n.keyed.txt" "$f" --keylog "$k" -q; fi
done
for f in "$CORPUS"/public-http/*.pcap*; do
  [ -f "$f" ] || continue
  n=$(basename "$f")
  run "ph_$n.txt" "$f" -q
  run "ph_$n.json" "$f" --json -q
  run "ph_$n.t2.txt" "$f" --threads 2 -q
done
T="$CORPUS/public-tls"
if [ -d "$T" ]; then
  for f in "$T"/*.pcap*; do run "pt_$(basename "$f").txt" "$f" -q; done
  for k in "$T"/*.keys; do
    p=$(ls "$T"/*.pcap* | head -1)
    case $k in *rfc8446*) p="$T/tls13-rfc8446.pcap";; esac
    run "pt_$(basename "$k").keyed.json" "$p" --keylog "$k" --json -q
  done
fi
for f in "$@"; do
  n=$(basename "$f" .pcap)
  for t in 1 2; do
    run "b_$n.t$t.txt" "$f" --threads $t -q
    run "b_$n.t$t.json" "$f" --threads $t --json -q
  done
  run "b_$n.csv" "$f" --csv -q
  tw="${f%.pcap}-https.pcap"; tk="${f%.pcap}-https.keys"
  if [ -f "$tw" ] && [ -f "$tk" ]; then
    run "b_$n.https.txt" "$tw" --keylog "$tk" --threads 1 -q
    # Decrypting, the threads split the connections otherwise (reading_thread_share).
    run "b_$n.https.t2.txt" "$tw" --keylog "$tk" --threads 2 -q
  fi
done
echo "same-reports: $(ls "$OUT" | wc -l) files in $OUT"
