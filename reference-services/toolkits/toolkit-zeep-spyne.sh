#!/usr/bin/env bash
# Python zeep client -> spyne service (Soap11, WsgiApplication), echoString of 200 chars.
# The client fetches the WSDL (GET ?wsdl) first, untimed; zeep's default Transport is one
# requests.Session (keep-alive when the server allows, TCP_NODELAY set by urllib3).
# default:     spyne's WsgiApplication on wsgiref.simple_server (spyne's examples): HTTP/1.0
#              responses, a connection per call, each response in 5 writes.
# --keepalive: the same app behind http.server with protocol_version HTTP/1.1: one connection;
#              headers and body are two writes and Nagle holds the body until zeep's delayed ACK.
# --fixed:     as --keepalive plus TCP_NODELAY on the server's accepted sockets.
# usage: toolkit-zeep-spyne.sh [--fixed|--keepalive] --port P --calls N
set -euo pipefail
TK_EXTRA_USAGE="|--keepalive"
source "$(dirname "$0")/lib.sh"
tk_parse_args "$@"
MODE=wsgiref
[ "$KEEPALIVE" = 1 ] && MODE=http11
[ "$FIXED" = 1 ] && MODE=http11-nodelay

"$PY" "$TK_DIR/zeep-spyne/server.py" "$PORT" "$MODE" >&2 &
SERVER=$!
trap 'tk_stop $SERVER' EXIT
tk_wait_port "$PORT" "$SERVER"
timeout "$TK_TIMEOUT_S" "$PY" "$TK_DIR/zeep-spyne/client.py" "http://127.0.0.1:$PORT/" "$CALLS" 200
