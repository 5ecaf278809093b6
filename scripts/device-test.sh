#!/usr/bin/env bash
# device-test.sh: the CUDA platform's checks on a GPU host, in one go.
#
# Builds the evaluation half with CUDA (no agent, no Clang tooling), then
#   - probes the device and calibrates cuda-sm90 (kgb calibrate),
#   - runs the CUDA ctest labels: gpu (solutions evaluated with timing,
#     planted hacks, ncu and compute-sanitizer) plus the fast CUDA unit and
#     integration tests,
#   - kgb validate --platform cuda-sm90 (every task: solution and baseline),
#   - the timing-fidelity benchmark (event median vs Nsight Compute, spread
#     over five evaluations),
#   - the end-to-end latency of `kgb eval` on a small CUDA kernel (median of 5),
#   - kgb profile (ncu) and kgb profile --sanitize on a planted bug.
# Everything is written under $OUT (default ./device-test-out), at most eight
# files: summary.txt, build.log, calibrate.txt, ctest.log, validate.txt,
# fidelity.txt, latency.txt, profile.txt. Each step has its own time limit so
# that the whole run stays within ten minutes on a 16-core host.
#
# Dependencies expected on the host: CUDA toolkit (nvcc, CUPTI, cuBLAS, ncu,
# compute-sanitizer), CMake, Ninja, g++, nlohmann_json, spdlog, doctest; CLI11
# may come as headers in .devdeps/include (a CMake config is made for it when
# it has none); libtorch from the PyTorch wheel, when python3 has torch.
#
# Usage: scripts/device-test.sh        (from the repository root)
# Environment: OUT (output folder), KGB_DEVICE_BUILD (build folder, default
# build-device), KGB_DEVICE_JOBS (default 16).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/device-test-out}
BUILD=${KGB_DEVICE_BUILD:-$ROOT/build-device}
JOBS=${KGB_DEVICE_JOBS:-16}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
START=$(date +%s)

note() { echo "$*" | tee -a "$SUMMARY"; }
elapsed() { echo $(($(date +%s) - START)); }
# step NAME LIMIT LOG COMMAND...: runs a step under a time limit, appends its
# output to LOG and one line to the summary.
step() {
  local name=$1 limit=$2 log=$3
  shift 3
  local t0=$(date +%s)
  echo "### $name: $*" >>"$log"
  timeout --kill-after=10 "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  note "$(printf '%-28s rc=%-3s %4ss (at %ss)' "$name" "$rc" "$(($(date +%s) - t0))" "$(elapsed)")"
  return $rc
}

export PATH=/usr/local/cuda/bin:$PATH
for tool in nvcc ncu compute-sanitizer; do
  command -v "$tool" >/dev/null || { [ -x "/usr/local/cuda/bin/$tool" ] || note "warning: $tool not found"; }
done
note "host: $(uname -srm), $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | head -1)"
note "nvcc: $(nvcc --version 2>/dev/null | tail -1)"

# CLI11 as bare headers: give CMake a config for them.
PREFIX=""
if [ -d "$ROOT/.devdeps" ]; then
  PREFIX="$ROOT/.devdeps"
  if [ -d "$ROOT/.devdeps/include/CLI" ] && ! find "$ROOT/.devdeps" -name 'CLI11Config.cmake' | grep -q .; then
    mkdir -p "$BUILD-deps/CLI11"
    cat >"$BUILD-deps/CLI11/CLI11Config.cmake" <<EOF
if(NOT TARGET CLI11::CLI11)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$ROOT/.devdeps/include")
endif()
set(CLI11_FOUND TRUE)
EOF
    PREFIX="$PREFIX;$BUILD-deps"
  fi
fi
TORCH_CMAKE=$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "share", "cmake"))' 2>/dev/null)
[ -n "$TORCH_CMAKE" ] && PREFIX="$PREFIX;$TORCH_CMAKE"

BUILD_LOG=$OUT/build.log
: >"$BUILD_LOG"
step configure 240 "$BUILD_LOG" cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKGB_BUILD_AGENT=OFF -DKGB_WITH_CLANG_TOOLING=OFF -DKGB_WITH_CUDA=ON -DKGB_WITH_TORCH=OFF -DKGB_WITH_OPENBLAS=OFF \
  -DKGB_WITH_OPENCL=OFF -DCMAKE_PREFIX_PATH="$PREFIX" || { note "configure failed: see build.log"; exit 1; }
TARGETS="kgb kgb-baseline-cuda kgb-cuda-probe kgb-cuda-calibrate kgb_runner_cuda kgb-cuda-timing-fidelity"
TARGETS="$TARGETS test_cuda_gpu test_cuda_platforms test_profile_parsers test_cuda_compile"
ninja -C "$BUILD" -t targets all 2>/dev/null | grep -q '^kgb_cuda_aten' && TARGETS="$TARGETS kgb_cuda_aten"
step build 420 "$BUILD_LOG" ninja -C "$BUILD" -j"$JOBS" $TARGETS || { note "build failed: see build.log"; tail -40 "$BUILD_LOG"; exit 1; }
KGB=$BUILD/agent/cli/kgb

PROBE_T0=$(date +%s%N)
note "probe: $("$BUILD/backends/cuda/kgb-cuda-probe" sm_90a) ($(( ($(date +%s%N) - PROBE_T0) / 1000000 )) ms)"
"$KGB" platforms 2>&1 | grep cuda | tee -a "$SUMMARY"

CAL=$OUT/calibrate.txt
: >"$CAL"
if "$KGB" calibrate --help >/dev/null 2>&1; then
  step calibrate 120 "$CAL" "$KGB" calibrate --platform cuda-sm90
else
  note "kgb has no calibrate command (agent/cli wiring of profile_commands.cpp missing): running the microbenchmark alone"
  step calibrate-program 120 "$CAL" "$BUILD/backends/cuda/kgb-cuda-calibrate"
fi

CTEST_LOG=$OUT/ctest.log
: >"$CTEST_LOG"
step ctest-cuda-fast 120 "$CTEST_LOG" ctest --test-dir "$BUILD" -R 'test_profile_parsers|test_cuda_platforms' --output-on-failure
step ctest-gpu 400 "$CTEST_LOG" ctest --test-dir "$BUILD" -L gpu -V

VALIDATE=$OUT/validate.txt
: >"$VALIDATE"
step validate 300 "$VALIDATE" "$KGB" validate --platform cuda-sm90 --time-budget 0.5

FID=$OUT/fidelity.txt
: >"$FID"
step fidelity 300 "$FID" "$BUILD/tests/cuda/kgb-cuda-timing-fidelity"

LAT=$OUT/latency.txt
: >"$LAT"
{
  echo "end-to-end kgb eval (nvcc, link, all correctness checks, timing, baseline) of blas/saxpy's solution, 5 runs"
  times=()
  for i in 1 2 3 4 5; do
    t0=$(date +%s%N)
    "$KGB" eval blas/saxpy --platform cuda-sm90 --kernel benchmark/tasks/blas/saxpy/solutions/cuda.cu --json >"$BUILD/latency-$i.json" 2>&1
    rc=$?
    t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 ))
    times+=("$ms")
    python3 - "$BUILD/latency-$i.json" "$ms" "$rc" <<'EOF'
import json, sys
path, ms, rc = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    v = json.load(open(path))
    print(f"run: {ms} ms wall, rc {rc}, outcome {v.get('outcome')}, compile {v.get('compile_seconds', 0):.2f} s, "
          f"check {v.get('check_seconds', 0):.2f} s, time {v.get('time_seconds', 0):.2f} s, total {v.get('total_seconds', 0):.2f} s")
except Exception as e:
    print(f"run: {ms} ms wall, rc {rc}, unreadable verdict: {e}")
EOF
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "median wall: $(echo "$sorted" | sed -n 3p) ms (all: $(echo $sorted))"
  echo "without the baseline runner (--no-baseline), 5 runs:"
  times=()
  for i in 1 2 3 4 5; do
    t0=$(date +%s%N)
    "$KGB" eval blas/saxpy --platform cuda-sm90 --kernel benchmark/tasks/blas/saxpy/solutions/cuda.cu --no-baseline >/dev/null 2>&1
    times+=($(( ($(date +%s%N) - t0) / 1000000 )))
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "median wall: $(echo "$sorted" | sed -n 3p) ms (all: $(echo $sorted))"
} >>"$LAT" 2>&1
note "latency: $(grep 'median wall' "$LAT" | head -1)"

PROF=$OUT/profile.txt
: >"$PROF"
if "$KGB" profile --help >/dev/null 2>&1; then
  step profile-ncu 120 "$PROF" "$KGB" profile blas/saxpy --platform cuda-sm90 --kernel benchmark/tasks/blas/saxpy/solutions/cuda.cu --cases n_16M
  step profile-sanitize 120 "$PROF" "$KGB" profile blas/saxpy --platform cuda-sm90 --kernel tests/cuda/hacks/out_of_bounds_saxpy.cu --sanitize --no-ncu --cases prime_1009
else
  note "kgb has no profile command (agent/cli wiring missing); the gpu tests above ran the profile library"
fi

note "figures: $(grep -E 'timing fidelity' "$FID" | tail -1); $(grep -E 'task\(s\) on' "$VALIDATE" | tail -1)"
note "done in $(elapsed) s"
