#!/bin/bash
# Screenshots of the real app under Xvfb (no window manager): overview, calls,
# timeline and event-trace pages of one capture.
#   xvfb-run -a -s "-screen 0 1400x900x24" app/gui/tests/screenshots.sh \
#       BUILD/app/gui/stallscope testdata/toolkit-soaplite-keepalive.pcap out/gui [light|dark] [--call N]
set -u
APP=$1; CAP=$2; OUT=$3; THEME=${4:-light}; shift 4 || true
export XDG_CONFIG_HOME=$(mktemp -d)   # fresh settings: default layout
"$APP" --theme "$THEME" -geometry 1400x900+0+0 "$@" "$CAP" 2>/dev/null &
PID=$!
timeout 20 xdotool search --sync --name "StallScope" >/dev/null
sleep 6
import -window root "${OUT}-overview.png"
# Tabs are clicked (synthetic key events need input focus, which needs a WM).
for t in "calls 95" "timeline 160" "trace 240"; do
  set -- $t
  xdotool mousemove "$2" 31 click 1; sleep 1.5; import -window root "${OUT}-$1.png"
done
kill $PID; wait $PID 2>/dev/null
rm -rf "$XDG_CONFIG_HOME"
