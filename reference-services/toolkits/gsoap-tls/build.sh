#!/usr/bin/env bash
# Builds the gSOAP-over-TLS client into a build dir (default /work/build-toolkits/gsoap-tls):
# refsvc.h -> soapcpp2 -> g++ against libgsoapssl++ (gSOAP with OpenSSL). A script, as
# toolkits/gsoap/build.sh and for the same reason; rebuilds only when a source is newer.
set -euo pipefail
SRC="$(cd "$(dirname "$0")" && pwd)"
OUT="${1:-${STALLSCOPE_TOOLKIT_BUILD:-/work/build-toolkits}/gsoap-tls}"
command -v soapcpp2 >/dev/null || { echo "build.sh: soapcpp2 not found (apt-get install gsoap)" >&2; exit 1; }
mkdir -p "$OUT"
if [ -x "$OUT/gsoap-tls-client" ] && [ -z "$(find "$SRC" -newer "$OUT/gsoap-tls-client" -name '*.[ch]*' -print -quit)" ]; then
  exit 0
fi
# -C: client side only, -L: no soapClientLib, -x: no sample XML messages, -d: output dir
soapcpp2 -C -L -x -d "$OUT" -I/usr/share/gsoap/import "$SRC/refsvc.h" >"$OUT/soapcpp2.log" 2>&1 \
  || { cat "$OUT/soapcpp2.log" >&2; exit 1; }
g++ -O2 $(pkg-config --cflags gsoapssl++) -I"$OUT" -o "$OUT/gsoap-tls-client" "$SRC/client.cpp" "$OUT/soapC.cpp" \
  "$OUT/soapClient.cpp" $(pkg-config --libs gsoapssl++) -lssl -lcrypto -lz
echo "build.sh: built $OUT/gsoap-tls-client" >&2
