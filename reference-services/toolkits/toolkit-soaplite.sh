#!/usr/bin/env bash
# Perl SOAP::Lite client (LWP) -> SOAP::Transport::HTTP::Daemon server, echoString of 200 chars.
# default:     SOAP::Lite defaults: the client sends "Connection: TE, close" -> a connection per
#              call; the server writes each response in 6 writes (status line, headers..., body).
# --keepalive: client proxy(..., keep_alive => 1): one connection, and from call 2 on the server's
#              second write waits for the client's delayed ACK of the 17-byte status line (Nagle).
# --fixed:     keep_alive on the client and TCP_NODELAY on the server's accepted sockets.
# usage: toolkit-soaplite.sh [--fixed|--keepalive] --port P --calls N
set -euo pipefail
TK_EXTRA_USAGE="|--keepalive"
source "$(dirname "$0")/lib.sh"
tk_parse_args "$@"
CLIENT_MODE=""; SERVER_MODE=""
[ "$KEEPALIVE" = 1 ] && CLIENT_MODE=keepalive
[ "$FIXED" = 1 ] && { CLIENT_MODE=keepalive; SERVER_MODE=nodelay; }

perl "$TK_DIR/soaplite/server.pl" "$PORT" $SERVER_MODE >&2 &
SERVER=$!
trap 'tk_stop $SERVER' EXIT
tk_wait_port "$PORT" "$SERVER"
timeout "$TK_TIMEOUT_S" perl "$TK_DIR/soaplite/client.pl" "http://127.0.0.1:$PORT/" "$CALLS" 200 $CLIENT_MODE
