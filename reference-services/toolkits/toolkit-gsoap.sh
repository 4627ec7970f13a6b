#!/usr/bin/env bash
# gSOAP 2.8 C++ client -> gSOAP server, echoString with a 200-char string, N calls.
# default: soap_new() on both sides -> gSOAP sends "Connection: close", one TCP connection per call.
# --fixed: soap_new1(SOAP_IO_KEEPALIVE) on both sides -> one kept-alive connection for all calls.
# usage: toolkit-gsoap.sh [--fixed] --port P --calls N   (JSON latency lines on stdout)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tk_parse_args "$@"
[ "$KEEPALIVE" = 0 ] || tk_usage
BUILD="${STALLSCOPE_TOOLKIT_BUILD:-/work/build-toolkits}/gsoap"
"$TK_DIR/gsoap/build.sh" "$BUILD" >&2
MODE=""; [ "$FIXED" = 1 ] && MODE=keepalive

"$BUILD/gsoap-echo-server" "$PORT" $MODE >&2 &
SERVER=$!
trap 'tk_stop $SERVER' EXIT
tk_wait_port "$PORT" "$SERVER"
timeout "$TK_TIMEOUT_S" "$BUILD/gsoap-echo-client" "http://127.0.0.1:$PORT/soap" "$CALLS" 200 $MODE
