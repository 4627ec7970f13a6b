#!/usr/bin/env bash
# Compiles AxisEchoClient.java against Debian's libaxis-java jars into a build dir
# (default /work/build-toolkits/axis); prints the run classpath on stdout.
set -euo pipefail
SRC="$(cd "$(dirname "$0")" && pwd)"
OUT="${1:-${STALLSCOPE_TOOLKIT_BUILD:-/work/build-toolkits}/axis}"
J=/usr/share/java
CP="$J/axis.jar:$J/jaxrpc.jar:$J/saaj.jar:$J/commons-discovery.jar:$J/commons-logging.jar:$J/wsdl4j.jar"
CP="$CP:$J/javax.activation.jar:$J/javax.mail.jar:$J/commons-httpclient.jar:$J/commons-codec.jar"
for j in ${CP//:/ }; do [ -f "$j" ] || { echo "axis/build.sh: missing $j (apt-get install libaxis-java)" >&2; exit 1; }; done
command -v javac >/dev/null || { echo "axis/build.sh: javac not found (apt-get install default-jdk-headless)" >&2; exit 1; }
mkdir -p "$OUT"
if [ ! -f "$OUT/AxisEchoClient.class" ] || [ "$SRC/AxisEchoClient.java" -nt "$OUT/AxisEchoClient.class" ]; then
  javac -nowarn -cp "$CP" -d "$OUT" "$SRC/AxisEchoClient.java" >&2
fi
echo "$OUT:$CP"
