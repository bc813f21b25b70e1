#!/usr/bin/env bash
# Configures (once) and builds kiln into ./build; shared by scripts/run and scripts/test.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=debugoptimized
else
  meson setup --reconfigure build >/dev/null
fi
meson compile -C build
