#!/usr/bin/env bash
# A sample run: the experiment config against the in-process oracle, then the
# records exported for analysis (JSON lines and CSV), and the custom policy of
# this folder on the same tasks.
#   examples/run_oracle.sh [build-folder]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
kgb="$build/agent/cli/kgb"
out="$build/example-runs"  # inside the build folder, out of the source tree
mkdir -p "$out"

"$kgb" run --config examples/experiment.toml --store "$out/runs.db" --run-id example-refine --samples 1 --no-time
"$kgb" export example-refine --store "$out/runs.db" --format jsonl --table attempts > "$out/attempts.jsonl"
"$kgb" export example-refine --store "$out/runs.db" --format csv --table iterations > "$out/iterations.csv"
"$kgb" export example-refine --store "$out/runs.db" --format jsonl --table all > "$out/everything.jsonl"
echo "exported to $out: attempts.jsonl, iterations.csv, everything.jsonl"

# The custom policy (examples/policies/temperature_ladder.cpp) has its own driver.
"$build/examples/kgb-example-run" --config examples/experiment.toml --policy temperature-ladder --store "$out/ladder.db"
