#!/usr/bin/env bash
# Installs the Debian 12 packages StallScope needs to build, test and run.
# Idempotent: installs only what is missing. Needs root (or sudo).
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config ccache
  qt6-base-dev qt6-svg-dev qt6-charts-dev libqt6opengl6-dev
  libpcap-dev libwireshark-dev wireshark-dev tshark tcpdump
  libxml2-dev zlib1g-dev libssl-dev libmimalloc-dev libcairo2-dev libpng-dev nlohmann-json3-dev catch2
  xvfb xauth xdotool imagemagick librsvg2-bin poppler-utils fonts-dejavu-core
  iproute2 curl python3
  gsoap libgsoap-dev libsoap-lite-perl python3-zeep python3-spyne libaxis-java
  default-jdk-headless
  clang libclang-rt-14-dev
  strace openssl
  tcptrace
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
