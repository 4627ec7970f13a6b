#!/usr/bin/env bash
# curl with "Expect: 100-continue" against the SOAP::Lite daemon (soaplite/server.pl): the case
# issue 14 starts from. One curl process POSTs a 1.6 KB envelope (echoString of 1400 chars) N
# times on one kept-alive connection (--next). HTTP::Daemon answers the Expect with a 100 Continue
# written in two pieces; from the second call on Nagle holds the second piece until curl's
# delayed ACK, and curl sends the body only then (the Expect wait contains a Nagle hold: one wait,
# counted under expect_100_wait). Its response (status line apart from the rest) is held again.
# --fixed: curl -H 'Expect:' (body with the headers); the response hold stays (the server's).
# Latency per call = curl's own -w '%{time_total}'.
# usage: toolkit-curl-soaplite-expect.sh [--fixed] --port P --calls N
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tk_parse_args "$@"
[ "$KEEPALIVE" = 0 ] || tk_usage
tk_curl_envelope 1400 urn:Echo ""
EXPECT='Expect: 100-continue'; [ "$FIXED" = 1 ] && EXPECT='Expect:'

perl "$TK_DIR/soaplite/server.pl" "$PORT" >&2 &
SERVER=$!
trap 'tk_stop $SERVER; rm -rf "$WORK"' EXIT
tk_wait_port "$PORT" "$SERVER"
args=()
for i in $(seq 1 "$CALLS"); do
  [ "$i" -gt 1 ] && args+=(--next)
  args+=(-sS -o "$WORK/response.$i.xml" -w "%{http_code} %{time_total}\n" -H 'Content-Type: text/xml; charset=utf-8'
         -H 'SOAPAction: "urn:Echo#echoString"' -H "$EXPECT" --data-binary @"$ENVELOPE" "http://127.0.0.1:$PORT/")
done
timeout "$TK_TIMEOUT_S" curl --max-time 30 "${args[@]}" >"$WORK/times.txt"
i=0
while read -r code secs; do
  i=$((i + 1))
  [ "$code" = 200 ] && grep -q "$PAYLOAD" "$WORK/response.$i.xml" \
    || { echo "toolkit-curl-soaplite-expect.sh: call $i failed (HTTP $code)" >&2; cat "$WORK/response.$i.xml" >&2; exit 1; }
  awk -v i="$i" -v s="$secs" 'BEGIN { printf "{\"call\":%d,\"latency_ms\":%.3f}\n", i, s * 1000 }'
done <"$WORK/times.txt"
[ "$i" = "$CALLS" ] || { echo "toolkit-curl-soaplite-expect.sh: $i of $CALLS calls answered" >&2; exit 1; }
