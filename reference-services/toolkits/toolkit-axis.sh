#!/usr/bin/env bash
# Apache Axis 1.4 Java client (org.apache.axis.client.Call, Debian libaxis-java, OpenJDK)
# -> gSOAP echo server with SOAP_IO_KEEPALIVE (one write per message, TCP_NODELAY), so what the
# capture shows about the connection is the client's doing. echoString of 200 chars, rpc/encoded.
# default: new Service(): Axis's HTTPSender, "POST ... HTTP/1.0" -> a connection per call.
# --fixed: CommonsHTTPSender (commons-httpclient 3.1) + HTTP_TRANSPORT_VERSION HTTP/1.1 ->
#          one kept-alive connection (chunked request bodies).
# Call 1 includes the JVM's class loading (a few hundred ms).
# usage: toolkit-axis.sh [--fixed] --port P --calls N
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tk_parse_args "$@"
[ "$KEEPALIVE" = 0 ] || tk_usage
BUILD="${STALLSCOPE_TOOLKIT_BUILD:-/work/build-toolkits}"
"$TK_DIR/gsoap/build.sh" "$BUILD/gsoap" >&2
CP="$("$TK_DIR/axis/build.sh" "$BUILD/axis")"
MODE=""; [ "$FIXED" = 1 ] && MODE=commons

"$BUILD/gsoap/gsoap-echo-server" "$PORT" keepalive >&2 &
SERVER=$!
trap 'tk_stop $SERVER' EXIT
tk_wait_port "$PORT" "$SERVER"
# Axis logs warnings about missing activation/mail handlers on stderr; stdout is only the JSON.
timeout "$TK_TIMEOUT_S" java -cp "$CP" AxisEchoClient "http://127.0.0.1:$PORT/soap" "$CALLS" 200 $MODE
