#!/bin/sh
# Regenerates the screenshot of docs/reports.md: real `kgb run`s against the
# in-process oracle over a few tasks, their HTML report, and a headless
# Chromium screenshot of it.
#
#   tests/report/screenshot.sh BUILD_DIR [OUTPUT_PNG] [WORK_DIR]
#
# The runs, all of the refine policy with injected faults (a compile error,
# then a wrong result, then the bundled solution): on cpu-x86_64 without a
# budget; on cpu-x86_64 with a budget of 20k tokens per attempt (the larger
# tasks run out of it: a budget comparison); and, when the aarch64 runner is
# built, on cpu-aarch64 under qemu (a portability comparison; emulated
# platforms are not timed). A case filter and a short timing budget keep it to
# minutes. The oracle costs nothing; a made-up price for its model gives the
# dollar figures something to show. WORK_DIR keeps the store and report.html
# (default: a temporary folder).
set -eu

build=$(cd "${1:?usage: tests/report/screenshot.sh BUILD_DIR [OUTPUT_PNG] [WORK_DIR]}" && pwd)
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
output=$(realpath -m "${2:-$source_dir/docs/report-screenshot.png}")
work=$(realpath -m "${3:-$(mktemp -d)}")
kgb=$build/agent/cli/kgb
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -x "$kgb" ] || { echo "no kgb at $kgb (build the kgb target)" >&2; exit 2; }
[ -n "$browser" ] || { echo "chromium is not installed" >&2; exit 2; }

mkdir -p "$work"
# Relative names from here on: the report shows the store's name as given.
cd "$work"
store=runs.db
rm -f "$store" "$store-wal" "$store-shm"
tasks='vllm/*,blas/saxpy,aten/add,aten/softmax'
# Cases with a '1' in their name: a few small correctness cases (size1,
# rank1_*) and most performance cases of these tasks.
cat > experiment.toml <<'EOF'
[evaluation]
cases = "*1*"
time_budget_seconds = 0.2

[prices."oracle"]   # US dollars per million tokens (made up: the oracle is free)
input = 1.0
output = 4.0
EOF

run() {
  "$kgb" run --config experiment.toml --provider oracle --tasks "$tasks" --store "$store" \
    --seed 7 --concurrency 2 --jobs 2 --quiet "$@"
}
faults='--policy refine --oracle-compile-errors 1 --oracle-wrong-results 1'
# shellcheck disable=SC2086
run --run-id refine --platform cpu-x86_64 $faults
# shellcheck disable=SC2086
run --run-id refine-20k --platform cpu-x86_64 --budget-tokens 20000 $faults
runs='refine refine-20k'
if [ -f "$build/backends/cross/aarch64/libkgb_runner_cpu.a" ] && command -v qemu-aarch64 >/dev/null; then
  # shellcheck disable=SC2086
  run --run-id refine-arm --platform cpu-aarch64 $faults
  runs="$runs refine-arm"
fi

# shellcheck disable=SC2086
"$kgb" report $runs --store "$store" --format html --out report.html
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --user-data-dir="$work/chromium" --window-size=1280,1570 --screenshot="$output" "file://$work/report.html" 2>/dev/null
echo "report: $work/report.html"
echo "screenshot: $output"
