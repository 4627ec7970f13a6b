#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each one for
# a short while, seeded with testdata/ and testdata/hostile/. Fails on any
# crash, leak, timeout or out-of-memory; the input that did it is left in
# BUILD/fuzz-artifacts/ (turn it into a testdata/hostile case before fixing).
#
#   scripts/fuzz-smoke.sh [BUILD_DIR]        default /work/build-fuzz
#   FUZZ_SECONDS=30   seconds per target     JOBS=2   ninja -j
#   FUZZ_TARGETS="fuzz_http_parser ..."      only these
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-/work/build-fuzz}"
SECS="${FUZZ_SECONDS:-30}"
JOBS="${JOBS:-2}"
TARGETS="${FUZZ_TARGETS:-fuzz_capture_reader fuzz_http_parser fuzz_content_decoder fuzz_soap_decoder fuzz_pipeline fuzz_tls_records fuzz_tls_handshake fuzz_tls_keylog}"

command -v clang++ >/dev/null || { echo "fuzz-smoke: clang++ missing (scripts/install-deps.sh)"; exit 1; }
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSTALLSCOPE_FUZZ=ON \
  -DSTALLSCOPE_GUI=OFF -DSTALLSCOPE_WIRESHARK_PLUGIN=OFF -DSTALLSCOPE_TESTS=OFF >/dev/null
# shellcheck disable=SC2086
ninja -C "$BUILD" -j "$JOBS" $TARGETS

SEEDS="$BUILD/fuzz-seeds"
rm -rf "$SEEDS"
python3 "$ROOT/reference-services/hostile/make_fuzz_seeds.py" "$SEEDS"
mkdir -p "$BUILD/fuzz-artifacts"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
for t in $TARGETS; do
  bin=$(find "$BUILD" -type f -name "$t" -perm -u+x | head -n1)
  work="$BUILD/fuzz-corpus/$t"   # grows across runs; new inputs go here
  mkdir -p "$work"
  echo "fuzz-smoke: $t for ${SECS}s"
  if ! "$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
        -artifact_prefix="$BUILD/fuzz-artifacts/$t-" -print_final_stats=1 \
        "$work" "$SEEDS/$t" >"$BUILD/fuzz-$t.log" 2>&1; then
    echo "fuzz-smoke: $t FAILED; tail of $BUILD/fuzz-$t.log:"
    tail -n 40 "$BUILD/fuzz-$t.log"
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$BUILD/fuzz-$t.log" | tr '\n' ' '; echo
  fi
done
exit $status
