#!/usr/bin/env bash
# One command for the sanitizer build: configure with ASan + UBSan, build
# everything (no GUI, no Wireshark plugin), run the whole ctest suite (which
# includes the hostile corpus, hostile.corpus / hostile.caps) with leak
# detection on.
#
#   scripts/sanitize.sh [BUILD_DIR]     default /work/build-asan
#   JOBS=2 (ninja -j)   CTEST_ARGS="-E slow" (extra ctest arguments)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-/work/build-asan}"
JOBS="${JOBS:-2}"

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTALLSCOPE_SANITIZE=ON \
  -DSTALLSCOPE_GUI=OFF -DSTALLSCOPE_WIRESHARK_PLUGIN=OFF
ninja -C "$BUILD" -j "$JOBS"

# LeakSanitizer needs ptrace-like access to the process (it stops threads);
# where that is forbidden it dies with "LeakSanitizer has encountered a fatal
# error". Probe once, so the report says which it was.
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf 'int main(){return 0;}\n' > "$probe_dir/p.c"
leaks=1
if cc -fsanitize=address "$probe_dir/p.c" -o "$probe_dir/p" 2>/dev/null; then
  if ! ASAN_OPTIONS=detect_leaks=1 "$probe_dir/p" 2>"$probe_dir/err"; then
    echo "sanitize: LeakSanitizer cannot run here ($(head -c 200 "$probe_dir/err")); leak checks off"
    leaks=0
  fi
fi
export ASAN_OPTIONS="detect_leaks=$leaks:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$ROOT/scripts/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
echo "sanitize: ASAN_OPTIONS=$ASAN_OPTIONS"
# shellcheck disable=SC2086
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" ${CTEST_ARGS:-}
