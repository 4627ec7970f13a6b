#!/usr/bin/env bash
# Wall time against tcptrace, the way docs/performance.md's tables are made:
# ROUNDS interleaved rounds, each running in turn `analyze` with 1 and 2
# threads, text and --json (reports to /dev/null), and `tcptrace -l -n` on
# each FILE; prints the minimum and median of each, the peak RSS, and the
# ratios issue 26 asks about. A shared machine only adds time: compare
# within one run.
#
#   scripts/perf/wall-vs-tcptrace.sh BIN ROUNDS FILE...
set -u
[ $# -ge 3 ] || { echo "usage: $0 BIN ROUNDS FILE..." >&2; exit 2; }
BIN=$1; R=$2; shift 2
OUT=$(mktemp)
trap 'rm -f "$OUT" "$OUT.err"' EXIT
for r in $(seq 1 "$R"); do
  for f in "$@"; do
    b=$(basename "$f" .pcap)
    for mode in t1 t2 j1 j2 tcptrace; do
      case $mode in
        t1) cmd=("$BIN" analyze "$f" --threads 1 -o /dev/null -q);;
        t2) cmd=("$BIN" analyze "$f" --threads 2 -o /dev/null -q);;
        j1) cmd=("$BIN" analyze "$f" --json --threads 1 -o /dev/null -q);;
        j2) cmd=("$BIN" analyze "$f" --json --threads 2 -o /dev/null -q);;
        tcptrace) cmd=(tcptrace -l -n "$f");;
      esac
      /usr/bin/time -f "$b $mode %e %M" "${cmd[@]}" >/dev/null 2>>"$OUT.err" || true
      tail -1 "$OUT.err" >>"$OUT"
    done
  done
done
python3 - "$OUT" <<'PY'
import sys,statistics as st,collections
d=collections.defaultdict(list); rss=collections.defaultdict(int)
for line in open(sys.argv[1]):
    p=line.split()
    if len(p)!=4: continue
    d[(p[0],p[1])].append(float(p[2])); rss[(p[0],p[1])]=max(rss[(p[0],p[1])],int(p[3]))
files=sorted({k[0] for k in d})
def r(a,b): return a/b if b else float('nan')
for f in files:
    t=lambda m: min(d[(f,m)]) if d[(f,m)] else float('nan')
    md=lambda m: st.median(d[(f,m)]) if d[(f,m)] else float('nan')
    print(f)
    for m in ['t1','t2','j1','j2','tcptrace']:
        print(f"  {m:9s} min {t(m):6.2f}  median {md(m):6.2f}  peakRSS {rss[(f,m)]/1024:6.1f} MB")
    print(f"  t1/tcptrace {r(t('t1'),t('tcptrace')):.2f}x (median {r(md('t1'),md('tcptrace')):.2f}x); json/text t1 {r(t('j1'),t('t1')):.2f}x; t1/t2 {r(t('t1'),t('t2')):.2f}x (median {r(md('t1'),md('t2')):.2f}x)")
PY
