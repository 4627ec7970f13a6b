#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test
# (unit, golden, tshark cross-check, GUI offscreen, Wireshark plugin,
# hostile corpus, live capture on loopback when permitted).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
build=${STALLSCOPE_BUILD:-$top/build}
cd "$build"
TZ=UTC LC_ALL=C ctest --output-on-failure -j 2 --timeout 600
