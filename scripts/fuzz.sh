#!/usr/bin/env bash
# The long fuzzing run (docs/fuzzing.md): builds the libFuzzer targets with
# clang-19 in build-fuzz/ and runs each for SECONDS (default 3600: one
# CPU-hour each), one after another, growing a working corpus in
# build-fuzz/corpus-<target>. Crashes land in build-fuzz/findings/<target>/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-3600}"
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(fuzz_sse fuzz_http_body fuzz_json_walk fuzz_extract fuzz_spec fuzz_stream fuzz_config fuzz_jsonrpc)
fi
if [[ ! -f build-fuzz/build.ninja ]]; then
  cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-19
fi
ninja -C build-fuzz "${targets[@]}"
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus-$t" "build-fuzz/findings/$t"
  cp -n tests/fuzz/corpus/"$t"/* "build-fuzz/corpus-$t/" 2>/dev/null || true
  echo "== $t: ${seconds}s"
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "build-fuzz/$t" -max_total_time="$seconds" -timeout=5 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$t/" "build-fuzz/corpus-$t" \
    2>&1 | tee "build-fuzz/findings/$t.log" | grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)|stat::|ERROR|SUMMARY' || true
done
