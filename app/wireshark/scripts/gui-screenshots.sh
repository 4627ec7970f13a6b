#!/usr/bin/env bash
# Screenshots of the StallScope plugin in the Wireshark GUI for docs/wireshark.md.
#   gui-screenshots.sh PLUGIN_SO CAPTURE OUTDIR
# Runs wireshark (package wireshark-qt) under Xvfb with the plugin in the
# personal plugin folder of a throw-away HOME; as root it runs as `nobody`,
# because Wireshark started as root ignores personal plugin folders.
# Writes OUTDIR/wireshark-details.png and OUTDIR/wireshark-expert.png.
# Click positions assume the 1500x950 screen set up here.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 PLUGIN_SO CAPTURE OUTDIR" >&2; exit 2; }
plugin=$(realpath "$1"); capture=$(realpath "$2"); outdir=$(realpath "$3")
for t in wireshark xvfb-run xdotool import; do
  command -v "$t" >/dev/null || { echo "$0: $t not found (apt-get install wireshark-qt xvfb xdotool imagemagick)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/stallscope-shots.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
home="$work/home"
mkdir -p "$home/.local/lib/wireshark/plugins/4.0/epan" "$home/.config/wireshark"
cp "$plugin" "$home/.local/lib/wireshark/plugins/4.0/epan/stallscope.so"
cp "$capture" "$home/capture.pcap"
cat > "$home/.config/wireshark/recent_common" <<'R'
gui.geometry_main_x: 0
gui.geometry_main_y: 0
gui.geometry_main_width: 1500
gui.geometry_main_height: 950
R
cat > "$work/session.sh" <<'S'
#!/usr/bin/env bash
# Inside Xvfb. The display filter is typed after the file is loaded: a filter
# given with -Y runs during the first pass, before the analysis is complete.
cd "$HOME"
wireshark -r capture.pcap -g 5 > wireshark.log 2>&1 &
ws=$!
sleep 20
w=$(xdotool search --name "capture" | head -1)
xdotool windowsize "$w" 1500 950; xdotool windowmove "$w" 0 0; sleep 2
xdotool key --window "$w" ctrl+slash; sleep 1
xdotool type --delay 50 'stallscope.finding == "nagle_delayed_ack"'; xdotool key Return; sleep 5
xdotool mousemove 300 588 click 1; sleep 1          # the StallScope line of the details pane
xdotool key shift+Right; sleep 2                      # expand its subtrees
import -window root "$HOME/wireshark-details.png"
xdotool key ctrl+slash; sleep 1; xdotool key ctrl+a
xdotool type --delay 50 'stallscope'; xdotool key Return; sleep 5
xdotool mousemove 16 939 click 1; sleep 6             # status bar: Expert Information
xdotool mousemove 500 40 click 1; sleep 1; xdotool key Right; sleep 1
xdotool mousemove 500 57 click 1; sleep 1
import -window root "$HOME/wireshark-expert.png"
kill "$ws"
S
chmod -R a+rX "$work"; chmod 755 "$work/session.sh"
run=(env HOME="$home" timeout 120 xvfb-run -a -s "-screen 0 1500x950x24" "$work/session.sh")
if [ "$(id -u)" -eq 0 ]; then
  chown -R 65534:65534 "$home"
  run=(setpriv --reuid=65534 --regid=65534 --clear-groups "${run[@]}")
fi
"${run[@]}" 2>/dev/null || true
mkdir -p "$outdir"
for f in wireshark-details.png wireshark-expert.png; do
  [ -s "$home/$f" ] || { echo "$0: $f was not taken; wireshark.log:" >&2; cat "$home/wireshark.log" >&2; exit 1; }
  cp "$home/$f" "$outdir/$f"
done
echo "wrote $outdir/wireshark-details.png $outdir/wireshark-expert.png"
