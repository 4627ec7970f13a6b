#!/usr/bin/env bash
# The delay link (reference-services/delaylink/) through delay-path.sh's three namespaces:
# ping and TCP connect round trips are the configured 2 x one-way delay (never less, at most a few ms
# more), and with a jitter larger than the gap between packets they still arrive in order.
# usage: delay_link_test.sh BUILD_DIR     (root; exit 77 = skipped)
set -uo pipefail
build=${1:?usage: delay_link_test.sh BUILD_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/reference-services/stallscope-delaylink"
[ -x "$bin" ] || { echo "no $bin"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (ip netns, /dev/net/tun)"; exit 77; }
ip netns add "vantage-probe-$$" 2>/dev/null || { echo "SKIP: ip netns not allowed here"; exit 77; }
ip netns del "vantage-probe-$$"
[ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun"; exit 77; }
# shellcheck source=../delay-path.sh
. "$here/delay-path.sh"
listener_pid=""
cleanup() {
  [ -n "$listener_pid" ] && kill -TERM "$listener_pid" 2>/dev/null && wait "$listener_pid" 2>/dev/null
  delay_path_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM
failures=0
check() {  # check NAME PYTHON_CONDITION
  if python3 -c "import sys; sys.exit(0 if ($2) else 1)"; then echo "ok: $1"
  else echo "FAIL: $1"; failures=$((failures + 1)); fi
}

for one_way in 10 25; do
  jitter=0.4
  delay_path_up vantage $$ "$one_way" "$jitter" "$bin" || { echo "FAIL: path did not come up"; exit 1; }
  rtt=$(python3 -c "print(2 * $one_way)")

  # ping: 20 echoes; the median adds the mean jitter (4 link crossings x jitter/4). Medians, because on
  # this shared machine a packet now and then waits for the kernel's softirq thread.
  out=$(ip netns exec "$DP_NS_CLI" python3 "$here/icmp_ping.py" "$DP_SERVER_IP" --count 20 --interval 0.05)
  stats=$(sed -n 's|.*min/avg/median/max \([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\) ms|\1 \3 \4|p' <<<"$out")
  read -r pmin pmed pmax <<<"$stats"
  echo "one-way $one_way ms: ping min/median/max $pmin/$pmed/$pmax ms (configured round trip $rtt + jitter: up to $jitter one way)"
  check "ping: 20 of 20 answered" "'received 20 ' in '''$out'''"
  check "ping: no echo faster than the configured round trip" "$pmin >= $rtt"
  check "ping: median within 3 ms of the configured round trip" "abs($pmed - $rtt - $jitter) < 3"

  # TCP: connect() returns after SYN -> SYN-ACK, one round trip; the kernel's own RTT sample
  # (tcp_info.tcpi_rtt, µs) is that round trip without this process's wake-up time.
  ip netns exec "$DP_NS_SRV" python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('$DP_SERVER_IP', 24680)); s.listen(16); s.settimeout(20)
open('$DP_WORK/listening', 'w').write('listening')
for _ in range(10):
    c, _ = s.accept(); c.close()
" &
  listener_pid=$!
  dp_wait_for "$DP_WORK/listening" listening || echo "FAIL: TCP listener did not start"
  tcp=$(ip netns exec "$DP_NS_CLI" python3 -c "
import socket, statistics, struct, time
rtts, krtts = [], []
for _ in range(10):
    s = socket.socket(); t0 = time.monotonic()
    s.connect(('$DP_SERVER_IP', 24680)); rtts.append((time.monotonic() - t0) * 1000)
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    krtts.append(struct.unpack_from('I', info, 68)[0] / 1000); s.close()
print('%.3f %.3f' % (min(rtts), statistics.median(krtts)))
")
  wait "$listener_pid"; listener_pid=""
  read -r tmin tmed <<<"$tcp"
  echo "one-way $one_way ms: TCP connect() min $tmin ms, kernel RTT median $tmed ms"
  check "TCP: connect never faster than the configured round trip" "$tmin >= $rtt"
  check "TCP: median kernel RTT within 3 ms of the configured round trip" "abs($tmed - $rtt - $jitter) < 3"
  delay_path_down
done

# Order: 300 numbered datagrams sent back to back through a path whose jitter (4 ms per link) is far
# larger than the gap between them; a link that released each packet at its own time would reorder them.
delay_path_up vantage $$ 10 8 "$bin" || { echo "FAIL: path did not come up"; exit 1; }
ip netns exec "$DP_NS_SRV" python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('$DP_SERVER_IP', 24681)); s.settimeout(10)
open('$DP_WORK/listening', 'w').write('listening')
got = []
try:
    while len(got) < 300: got.append(int(s.recv(64)))
except socket.timeout: pass
open('$DP_WORK/order', 'w').write(' '.join(map(str, got)))
" &
listener_pid=$!
dp_wait_for "$DP_WORK/listening" listening || echo "FAIL: UDP receiver did not start"
ip netns exec "$DP_NS_CLI" python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(300):
    s.sendto(str(i).encode(), ('$DP_SERVER_IP', 24681))
    if i % 20 == 19: time.sleep(0.001)   # not faster than the receiver's buffer takes them
"
wait "$listener_pid"; listener_pid=""
order=$(cat "$DP_WORK/order")
echo "order: received $(wc -w <<<"$order") datagrams"
check "order: all 300 datagrams arrived" "len('''$order'''.split()) == 300"
check "order: in the order sent despite 8 ms of jitter" "[int(x) for x in '''$order'''.split()] == list(range(300))"
delay_path_down

[ "$failures" = 0 ] && echo "delay link: all checks passed" || { echo "delay link: $failures check(s) failed"; exit 1; }
