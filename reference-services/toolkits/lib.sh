# Shared helpers for the toolkit scenario scripts (sourced, not run).
# Each scenario: <scenario>.sh [--fixed] --port P --calls N
# prints {"call":i,"latency_ms":x} per call on stdout; logs go to stderr.

TK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY=/usr/bin/python3          # Debian's python3 has python3-zeep / python3-spyne
TK_MAX_CALLS=1000
TK_TIMEOUT_S=${TK_TIMEOUT_S:-120}   # hard bound for one client run

tk_usage() {
  echo "usage: $(basename "$0") [--fixed${TK_EXTRA_USAGE:-}] --port P --calls N" >&2
  exit 2
}

# Sets FIXED (0/1), PORT, CALLS from the command line.
tk_parse_args() {
  FIXED=0; KEEPALIVE=0; PORT=""; CALLS=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --fixed) FIXED=1 ;;
      --keepalive) KEEPALIVE=1 ;;   # only scenarios whose usage names it
      --port) PORT="${2:-}"; shift ;;
      --calls) CALLS="${2:-}"; shift ;;
      -h|--help) tk_usage ;;
      *) echo "$(basename "$0"): unknown argument '$1'" >&2; tk_usage ;;
    esac
    shift
  done
  [[ "$PORT" =~ ^[0-9]+$ ]] && [ "$PORT" -ge 1024 ] && [ "$PORT" -le 65535 ] \
    || { echo "$(basename "$0"): --port must be 1024..65535" >&2; tk_usage; }
  [[ "$CALLS" =~ ^[0-9]+$ ]] && [ "$CALLS" -ge 1 ] && [ "$CALLS" -le $TK_MAX_CALLS ] \
    || { echo "$(basename "$0"): --calls must be 1..$TK_MAX_CALLS" >&2; tk_usage; }
  if ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q .; then
    echo "$(basename "$0"): port $PORT is already in use" >&2; exit 1
  fi
}

# Waits (up to ~10 s) until something listens on 127.0.0.1:$1; fails if pid $2 died.
tk_wait_port() {
  local port=$1 pid=$2 i
  for i in $(seq 1 200); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$(basename "$0"): server (pid $pid) exited before listening" >&2
      return 1
    fi
    # ss, not a probe connection: a probe would show up in the capture
    if ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then return 0; fi
    sleep 0.05
  done
  echo "$(basename "$0"): nothing listens on port $port after 10 s" >&2
  return 1
}

# Stops server pid $1 (TERM, then KILL after 3 s).
tk_stop() {
  local pid=$1 i
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  return 0
}

# The curl scenarios' setup: WORK (a temporary folder), PAYLOAD (N x 'x') and ENVELOPE
# (a SOAP 1.1 echoString envelope around it, in NAMESPACE; PREFIX "" or "tns:").
#   tk_curl_envelope N NAMESPACE PREFIX
tk_curl_envelope() {
  local n=$1 ns=$2 p=$3 decl
  WORK="$(mktemp -d /tmp/toolkit-curl.XXXXXX)"
  ENVELOPE="$WORK/envelope.xml"
  PAYLOAD="$(head -c "$n" /dev/zero | tr '\0' x)"
  if [ -n "$p" ]; then decl=" xmlns:${p%:}=\"$ns\""; else decl=""; fi
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"$decl>"
    if [ -n "$p" ]; then
      echo "  <soap:Body><${p}echoString><${p}s>$PAYLOAD</${p}s></${p}echoString></soap:Body>"
    else
      echo "  <soap:Body><echoString xmlns=\"$ns\"><s>$PAYLOAD</s></echoString></soap:Body>"
    fi
    echo '</soap:Envelope>'
  } >"$ENVELOPE"
}
