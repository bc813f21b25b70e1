#!/usr/bin/env bash
# One command for issue 22's table on a GPU machine (it runs on llvmpipe too): bench/gpu.sh [--runs N] [--out FILE].
# Needs a build (scripts/build.sh); writes bench/results/gpu-<date>.md unless --out says otherwise.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out=()
case " $* " in *" --out "*) ;; *) mkdir -p "$here/results"; out=(--out "$here/results/gpu-$(date -u +%Y%m%d-%H%M).md") ;; esac
exec python3 "$here/gpu.py" --build "${KILN_BUILD_DIR:-$here/../build}" "${out[@]}" "$@"
