# shellcheck shell=bash
# A client-middle-server path with a real round trip, for captures taken at three points at once.
# Sourced by run-scenario.sh (--path-delay) and tests/delay_link_test.sh; needs root.
#
#   client ns  --[delay link, ONE_WAY/2]--  middle ns (a router)  --[delay link, ONE_WAY/2]--  server ns
#   C_DEV 10.214.X.2                         M_CDEV 10.214.X.1, M_SDEV 10.215.X.1                S_DEV 10.215.X.2
#
# The kernel here has no netem, so each link is stallscope-delaylink moving packets between two TUN
# devices (one per namespace) after the delay plus a little jitter, keeping their order. The middle
# namespace forwards (TTL - 1), so the server sees the client's packets one hop away and vice versa.
#
#   delay_path_up PREFIX ID ONE_WAY_MS JITTER_MS DELAYLINK_BIN   # sets DP_* variables below
#   delay_path_down                                             # stops the links, deletes the namespaces
#
# After delay_path_up: DP_NS_CLI DP_NS_MID DP_NS_SRV (namespace names), DP_C_DEV DP_M_CDEV DP_M_SDEV DP_S_DEV
# (devices), DP_CLIENT_IP DP_SERVER_IP, DP_LINK_PIDS. Every name starts with PREFIX (a helper's name).
# The caller must call delay_path_down from its EXIT trap; it is safe to call twice.

DP_NS_CLI="" DP_NS_MID="" DP_NS_SRV="" DP_LINK_PIDS="" DP_WORK=""
DP_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

delay_path_down() {
  local p
  for p in $DP_LINK_PIDS; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $DP_LINK_PIDS; do wait "$p" 2>/dev/null || true; done
  DP_LINK_PIDS=""
  local ns
  for ns in "$DP_NS_CLI" "$DP_NS_MID" "$DP_NS_SRV"; do
    [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null || true
  done
  DP_NS_CLI="" DP_NS_MID="" DP_NS_SRV=""
  [ -n "$DP_WORK" ] && rm -rf "$DP_WORK"
  DP_WORK=""
}

# Waits (bounded, 5 s) until file $1 contains text $2.
dp_wait_for() {
  local i
  for i in $(seq 1 100); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

# Starts one delay link between NS_A:DEV_A and NS_B:DEV_B; waits until both devices exist.
dp_start_link() {
  local bin=$1 ns_a=$2 dev_a=$3 ns_b=$4 dev_b=$5 delay=$6 jitter=$7 seed=$8 log=$9
  "$bin" --a "$ns_a:$dev_a" --b "$ns_b:$dev_b" --delay-ms "$delay" --jitter-ms "$jitter" --seed "$seed" \
    --max-seconds 900 >"$log.out" 2>"$log.err" &
  DP_LINK_PIDS="$DP_LINK_PIDS $!"
  dp_wait_for "$log.out" "^ready" || { echo "delay-path: delay link did not start: $(cat "$log.err")" >&2; return 1; }
}

delay_path_up() {
  local prefix=$1 id=$2 one_way=$3 jitter=$4 bin=$5
  local x=$(( id % 250 + 1 )) short=$(( id % 10000 ))
  local half jhalf
  half=$(python3 -c "print($one_way / 2)") jhalf=$(python3 -c "print($jitter / 2)")
  DP_WORK="$(mktemp -d "/tmp/$prefix-path.XXXXXX")"
  DP_NS_CLI="$prefix-cli-$id" DP_NS_MID="$prefix-mid-$id" DP_NS_SRV="$prefix-srv-$id"
  local dp=${prefix:0:9}   # device names have at most 15 characters
  DP_C_DEV="${dp}c$short" DP_M_CDEV="${dp}mc$short" DP_M_SDEV="${dp}ms$short" DP_S_DEV="${dp}s$short"
  DP_CLIENT_IP="10.214.$x.2" DP_SERVER_IP="10.215.$x.2"
  local ns
  for ns in "$DP_NS_CLI" "$DP_NS_MID" "$DP_NS_SRV"; do
    ip netns add "$ns" || return 1
    ip -n "$ns" link set lo up || return 1
  done
  dp_start_link "$bin" "$DP_NS_CLI" "$DP_C_DEV" "$DP_NS_MID" "$DP_M_CDEV" "$half" "$jhalf" 1 "$DP_WORK/link1" || return 1
  dp_start_link "$bin" "$DP_NS_MID" "$DP_M_SDEV" "$DP_NS_SRV" "$DP_S_DEV" "$half" "$jhalf" 2 "$DP_WORK/link2" || return 1
  ip -n "$DP_NS_CLI" addr add "$DP_CLIENT_IP/24" dev "$DP_C_DEV" &&
  ip -n "$DP_NS_MID" addr add "10.214.$x.1/24" dev "$DP_M_CDEV" &&
  ip -n "$DP_NS_MID" addr add "10.215.$x.1/24" dev "$DP_M_SDEV" &&
  ip -n "$DP_NS_SRV" addr add "$DP_SERVER_IP/24" dev "$DP_S_DEV" || return 1
  for dev in "$DP_NS_CLI:$DP_C_DEV" "$DP_NS_MID:$DP_M_CDEV" "$DP_NS_MID:$DP_M_SDEV" "$DP_NS_SRV:$DP_S_DEV"; do
    ip -n "${dev%%:*}" link set "${dev#*:}" mtu 1500 up || return 1
  done
  ip -n "$DP_NS_CLI" route add "10.215.$x.0/24" via "10.214.$x.1" dev "$DP_C_DEV" &&
  ip -n "$DP_NS_SRV" route add "10.214.$x.0/24" via "10.215.$x.1" dev "$DP_S_DEV" &&
  ip netns exec "$DP_NS_MID" sysctl -qw net.ipv4.ip_forward=1 || return 1
  # The path is up when a ping crosses it (bounded).
  local i
  for i in $(seq 1 20); do
    ip netns exec "$DP_NS_CLI" python3 "$DP_HERE/icmp_ping.py" "$DP_SERVER_IP" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "delay-path: no ping across the path" >&2
  return 1
}
