#!/usr/bin/env bash
# Configures and builds StallScope into build/ (or $STALLSCOPE_BUILD).
# Extra arguments go to cmake's configure step.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${STALLSCOPE_BUILD:-$top/build}
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$build.configure.log" 2>&1 || {
  cat "$build.configure.log"; exit 1; }
ninja -C "$build" -j "$(nproc)"
