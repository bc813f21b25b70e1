#!/usr/bin/env bash
# Runs one libFuzzer target for KILN_FUZZ_SECONDS (default 30) over its seed corpus and regression inputs; prints
# how many inputs it executed, and where a crashing input was saved.
# usage: run_libfuzzer.sh FUZZER CORPUS_DIR ARTIFACT_DIR
set -euo pipefail
fuzzer=$1 corpus=$2 artifacts=$3
seconds=${KILN_FUZZ_SECONDS:-30}
name=$(basename "$fuzzer")

# New inputs go to a scratch corpus (the tree's corpus is read, never written); removed however the run ends.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/kiln-$name-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$artifacts"
log=$scratch/log

status=0
"$fuzzer" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$artifacts/" "$scratch" "$corpus" >"$log" 2>&1 || status=$?

# The corpus is replayed first: every seed and regression input runs before any mutation.
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
tail -n 40 "$log"
echo "$name: ${execs:-?} executions (limit ${seconds} s) over $(ls "$corpus" | wc -l) corpus inputs (status $status)"
if [ "$status" -ne 0 ]; then
  echo "$name: FAILED; the crashing input is in $artifacts/ (fix it, then add it to $corpus/)" >&2
fi
exit "$status"
