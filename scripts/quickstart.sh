#!/usr/bin/env bash
# Quick start: installs what is missing, builds, and opens a bundled capture
# (the XSOAP-like keep-alive profile with its Nagle/delayed-ACK stalls) in
# the desktop app when there is a display, or prints the CLI report.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
build=${STALLSCOPE_BUILD:-$top/build}
capture=${1:-$top/testdata/refsvc-xsoap.pcap}
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$build/app/gui/stallscope" ]; then
  exec "$build/app/gui/stallscope" "$capture"
fi
exec "$build/app/cli/stallscope-cli" analyze "$capture"
