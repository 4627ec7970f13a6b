#!/usr/bin/env bash
# Soak: generates big synthetic SOAP captures (streamed to disk) and analyses
# each with /usr/bin/time -v, printing capture size, calls, CPU time and peak
# RSS, so memory growth can be compared across sizes: once for the summary
# (--csv-summary) and once for the full JSON report (every call and finding,
# written to /dev/null). Not for CI (minutes, GBs of disk); the captures are
# deleted afterwards.
#
#   scripts/soak.sh [CLI] [SIZES_MB...]     default: build-hostile's CLI, 1024 4096
#   SOAK_DIR=/tmp/stallscope-soak  BODY_KB=4 (response body size)  KEEP=1 (keep files)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLI="${1:-/work/build-hostile/app/cli/stallscope-cli}"
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1024 4096)
DIR="${SOAK_DIR:-/tmp/stallscope-soak}"
mkdir -p "$DIR"
[ "${KEEP:-0}" = 1 ] || trap 'rm -f "$DIR"/soak-*.pcap' EXIT
printf '%-8s %-12s %-10s %-8s %-9s %-12s %-8s %s\n' size_mb connections calls cpu_s wall peak_rss_mb json_cpu_s json_rss_mb
for mb in "${SIZES[@]}"; do
  f="$DIR/soak-$mb.pcap"
  gen=$(python3 "$ROOT/reference-services/hostile/make_soak_capture.py" "$f" "$mb" --body-kb "${BODY_KB:-4}")
  conns=$(echo "$gen" | sed -n 's/.*about \([0-9]*\) connections.*/\1/p')
  calls=$(echo "$gen" | sed -n 's/.*, \([0-9]*\) calls started.*/\1/p')
  /usr/bin/time -v "$CLI" analyze "$f" --csv-summary -q -o "$DIR/soak-$mb.csv" 2>"$DIR/soak-$mb.time"
  rss=$(awk -F': ' '/Maximum resident/ {print int($2/1024)}' "$DIR/soak-$mb.time")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.1f", u+s}' "$DIR/soak-$mb.time")
  wall=$(awk -F': ' '/Elapsed/ {print $2}' "$DIR/soak-$mb.time")
  /usr/bin/time -v "$CLI" analyze "$f" --json -q -o /dev/null 2>"$DIR/soak-$mb.json.time"
  jrss=$(awk -F': ' '/Maximum resident/ {print int($2/1024)}' "$DIR/soak-$mb.json.time")
  jcpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.1f", u+s}' "$DIR/soak-$mb.json.time")
  printf '%-8s %-12s %-10s %-8s %-9s %-12s %-8s %s\n' "$mb" "$conns" "$calls" "$cpu" "$wall" "$rss" "$jcpu" "$jrss"
  rm -f "$f"
done
