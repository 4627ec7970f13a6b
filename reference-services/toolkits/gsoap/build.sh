#!/usr/bin/env bash
# Builds the gSOAP echo server and client into a build dir (default /work/build-toolkits/gsoap):
# echo.h -> soapcpp2 -> g++ against libgsoap++. A script, not CMake, because the
# reference-services/CMakeLists.txt belongs to the reference server and the toolkit
# scenarios must build on their own; it rebuilds only when a source is newer.
set -euo pipefail
SRC="$(cd "$(dirname "$0")" && pwd)"
OUT="${1:-${STALLSCOPE_TOOLKIT_BUILD:-/work/build-toolkits}/gsoap}"
command -v soapcpp2 >/dev/null || { echo "build.sh: soapcpp2 not found (apt-get install gsoap)" >&2; exit 1; }
mkdir -p "$OUT"
if [ -x "$OUT/gsoap-echo-server" ] && [ -x "$OUT/gsoap-echo-client" ] \
   && [ -z "$(find "$SRC" -newer "$OUT/gsoap-echo-client" -name '*.[ch]*' -print -quit)" ]; then
  exit 0
fi
# -L: no soapClientLib/soapServerLib, -x: no sample XML messages, -d: output dir
soapcpp2 -L -x -d "$OUT" -I/usr/share/gsoap/import "$SRC/echo.h" >"$OUT/soapcpp2.log" 2>&1 \
  || { cat "$OUT/soapcpp2.log" >&2; exit 1; }
CXXFLAGS="-O2 $(pkg-config --cflags gsoap++)"
LIBS="$(pkg-config --libs gsoap++)"
g++ $CXXFLAGS -I"$OUT" -o "$OUT/gsoap-echo-server" "$SRC/server.cpp" "$OUT/soapC.cpp" "$OUT/soapServer.cpp" $LIBS
g++ $CXXFLAGS -I"$OUT" -o "$OUT/gsoap-echo-client" "$SRC/client.cpp" "$OUT/soapC.cpp" "$OUT/soapClient.cpp" $LIBS
echo "build.sh: built $OUT/gsoap-echo-server and $OUT/gsoap-echo-client" >&2
