#!/usr/bin/env bash
# Regenerates every golden/<name>.expected from the current build.
# usage: testdata/golden/update.sh [BUILD_DIR]   (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
cli=$(cd "$build" && pwd)/app/cli/stallscope-cli
cd "$here/.."
export TZ=UTC LC_ALL=C
grep -v '^#' "$here/manifest.txt" | while read -r name capture opts; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  "$cli" analyze "$capture" $opts --quiet >"$here/$name.expected"
  echo "updated $name"
done
