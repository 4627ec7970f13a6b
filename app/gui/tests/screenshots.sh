#!/bin/bash
# Screenshots of the real app, one PNG per page (overview, calls, timeline,
# over-time, event-trace) at 1360x860, offscreen (no X server needed):
#   app/gui/tests/screenshots.sh BUILD/app/gui/stallscope testdata/toolkit-soaplite-keepalive.pcap out/gui [light|dark] [--call N]
# writes out/gui-overview.png, out/gui-calls.png, ... (docs/gui.md shows them).
set -u
APP=$1; CAP=$2; OUT=$3; THEME=${4:-light}; shift 4 || true
export XDG_CONFIG_HOME=$(mktemp -d)   # fresh settings: default layout
QT_QPA_PLATFORM=offscreen timeout 120 "$APP" --theme "$THEME" --screenshots "$OUT" "$@" "$CAP"
rc=$?
rm -rf "$XDG_CONFIG_HOME"
exit $rc
