#!/usr/bin/env bash
# device-test.sh: the CUDA platform's checks on a GPU host, in one go.
#
# Builds the evaluation half with CUDA (no agent, no Clang tooling), then
#   - probes the device and calibrates cuda-sm90 (kgb calibrate),
#   - runs the CUDA ctest labels: gpu (solutions evaluated with timing,
#     planted hacks, ncu and compute-sanitizer) plus the fast CUDA unit and
#     integration tests,
#   - kgb validate --platform cuda-sm90 (every task: solution and baseline),
#   - the end-to-end latency of `kgb eval` on a small CUDA kernel (median of 5,
#     scripts/cuda-eval-latency.sh),
#   - kgb profile (ncu) and kgb profile --sanitize on a planted bug,
#   - the timing-fidelity benchmark (event median vs Nsight Compute, spread
#     over five evaluations).
# Everything is written under $OUT (default ./device-test-out), at most eight
# files: summary.txt, build.log, calibrate.txt, ctest.log, validate.txt,
# fidelity.txt, latency.txt (CUDA and CPU), profile.txt. Each step has its own time limit so
# that the whole run stays within ten minutes on a 16-core host.
#
# Dependencies expected on the host: CUDA toolkit (nvcc, CUPTI, cuBLAS, ncu,
# compute-sanitizer), CMake, Ninja, g++, nlohmann_json, spdlog, doctest; CLI11
# may come as headers in .devdeps/include; libtorch from the PyTorch wheel,
# when python3 has torch.
#
# `--only profile` runs the profile tool's GPU-host checks instead (issue 22),
# in a build with OpenCL where the host's ICD loader allows it: kgb calibrate
# for cuda-sm90, opencl-nvidia and cpu-x86_64; the gpu-labelled profile tests
# (Nsight Compute, compute-sanitizer, the OpenCL per-kernel split on the
# NVIDIA driver); kgb profile on each platform with a two-kernel OpenCL
# candidate, a cache-hostile CPU kernel (hardware counters where this host's
# kernel allows perf) and the planted out-of-bounds bugs with --sanitize.
# Its output is calibrate.txt, ctest.log and profile.txt next to summary.txt.
#
# Usage: scripts/device-test.sh [--only profile]   (from the repository root)
# Environment: OUT (output folder), KGB_DEVICE_BUILD (build folder, default
# build-device), KGB_DEVICE_JOBS (default 16).
set -uo pipefail

ONLY=""
if [ "${1:-}" = "--only" ]; then
  ONLY=${2:-}
  [ "$ONLY" = "profile" ] || { echo "usage: $0 [--only profile]" >&2; exit 2; }
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/device-test-out}
BUILD=${KGB_DEVICE_BUILD:-$ROOT/build-device}
JOBS=${KGB_DEVICE_JOBS:-16}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
START=$(date +%s)

# Every step stops by this deadline, so the run ends within ten minutes
# (KGB_DEVICE_SECONDS, default 570) whatever happens.
DEADLINE=$((START + ${KGB_DEVICE_SECONDS:-570}))

note() { echo "$*" | tee -a "$SUMMARY"; }
elapsed() { echo $(($(date +%s) - START)); }
# step NAME LIMIT LOG COMMAND...: runs a step under a time limit (cut to what
# is left before the deadline), appends its output to LOG and one line to the
# summary.
step() {
  local name=$1 limit=$2 log=$3
  shift 3
  local left=$((DEADLINE - $(date +%s)))
  if [ "$left" -lt 15 ]; then
    note "$(printf '%-28s skipped: out of time' "$name")"
    return 124
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0=$(date +%s)
  echo "### $name: $*" >>"$log"
  timeout --kill-after=5 "$limit" "$@" >>"$log" 2>&1
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

# CLI11 may be bare headers in .devdeps/include: CMake finds them through the prefix.
PREFIX=""
[ -d "$ROOT/.devdeps" ] && PREFIX="$ROOT/.devdeps"
TORCH_CMAKE=$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "share", "cmake"))' 2>/dev/null)
[ -n "$TORCH_CMAKE" ] && PREFIX="$PREFIX;$TORCH_CMAKE"

BUILD_LOG=$OUT/build.log
: >"$BUILD_LOG"
CONFIGURE=(cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKGB_BUILD_AGENT=OFF
  -DKGB_WITH_CLANG_TOOLING=OFF -DKGB_WITH_CUDA=ON -DKGB_WITH_TORCH=OFF -DKGB_WITH_OPENBLAS=OFF -DKGB_WITH_OPENCL=OFF
  -DCMAKE_PREFIX_PATH="$PREFIX")
# libtorch's CMake config can fail hard on a host it does not like: then go on without the ATen CUDA baselines.
if [ "$ONLY" = "profile" ]; then
  profile_steps() {
    # OpenCL on where the host has an ICD loader and headers, for opencl-nvidia.
    step configure 180 "$BUILD_LOG" "${CONFIGURE[@]}" -DKGB_WITH_OPENCL=ON ||
      step configure-without-opencl 180 "$BUILD_LOG" "${CONFIGURE[@]}" || { note "configure failed: see build.log"; exit 1; }
    local targets="kgb kgb_runner_cuda kgb-baseline-cuda kgb-cuda-probe kgb-cuda-calibrate test_cuda_gpu test_profile_parsers"
    targets="$targets kgb_runner_cpu kgb_runner_cpu_sanitize kgb-baseline-cpu kgb-cpu-calibrate kgb_profile_unit_tests kgb_profile_cpu_tests"
    ninja -C "$BUILD" -t targets all 2>/dev/null | grep -q '^kgb_runner_opencl' &&
      targets="$targets kgb_runner_opencl kgb-baseline-opencl kgb-opencl-probe kgb-opencl-calibrate kgb_profile_opencl_gpu_tests kgb_profile_opencl_tests"
    step build 420 "$BUILD_LOG" ninja -C "$BUILD" -j"$JOBS" $targets || { note "build failed: see build.log"; tail -40 "$BUILD_LOG"; exit 1; }
    local kgb=$BUILD/agent/cli/kgb cal=$OUT/calibrate.txt ctest_log=$OUT/ctest.log prof=$OUT/profile.txt
    : >"$cal"; : >"$ctest_log"; : >"$prof"
    note "perf counters here: $(perf stat -x, -e instructions true 2>&1 | tail -1)"
    for platform in cuda-sm90 opencl-nvidia cpu-x86_64 opencl-pocl; do
      step "calibrate $platform" 90 "$cal" "$kgb" calibrate --platform "$platform"
    done
    grep -E '^calibrated|roofline peak now' "$cal" | tee -a "$SUMMARY"
    step ctest-profile-gpu 240 "$ctest_log" ctest --test-dir "$BUILD" -R 'test_cuda_gpu|kgb_profile_opencl_gpu_tests' -V
    step ctest-profile-host 240 "$ctest_log" ctest --test-dir "$BUILD" -R 'test_profile_parsers|kgb_profile_unit_tests|kgb_profile_cpu_tests|kgb_profile_opencl_tests' --output-on-failure
    step "profile cuda-sm90" 120 "$prof" "$kgb" profile blas/saxpy --platform cuda-sm90 --kernel benchmark/tasks/blas/saxpy/solutions/cuda.cu --cases n_16M
    step "sanitize cuda-sm90" 120 "$prof" "$kgb" profile blas/saxpy --platform cuda-sm90 --kernel tests/cuda/hacks/out_of_bounds_saxpy.cu --sanitize --no-counters --cases prime_1009
    step "profile opencl-nvidia" 120 "$prof" "$kgb" profile blas/saxpy --platform opencl-nvidia --kernel tests/profile/kernels/opencl_saxpy_two_kernels.cpp --cases n_16M
    step "sanitize opencl-nvidia" 120 "$prof" "$kgb" profile blas/saxpy --platform opencl-nvidia --kernel tests/profile/kernels/opencl_saxpy_oob_read.cpp --sanitize --no-counters --cases prime_1009
    step "profile cpu-x86_64" 120 "$prof" "$kgb" profile blas/saxpy --platform cpu-x86_64 --kernel tests/profile/kernels/cpu_saxpy_cache_hostile.cpp --cases n_16M
    step "sanitize cpu-x86_64" 120 "$prof" "$kgb" profile blas/saxpy --platform cpu-x86_64 --kernel tests/profile/kernels/cpu_saxpy_oob_read.cpp --sanitize --no-counters
    grep -A4 '^summary:' "$prof" | tee -a "$SUMMARY"
    note "done in $(elapsed) s"
    exit 0
  }
  profile_steps
fi

step configure 180 "$BUILD_LOG" "${CONFIGURE[@]}" ||
  step configure-without-torch 180 "$BUILD_LOG" "${CONFIGURE[@]}" -DKGB_WITH_TORCH_CUDA=OFF ||
  { note "configure failed: see build.log"; exit 1; }
TARGETS="kgb kgb-baseline-cuda kgb-cuda-probe kgb-cuda-calibrate kgb_runner_cuda kgb-cuda-timing-fidelity"
TARGETS="$TARGETS test_cuda_gpu test_cuda_platforms test_profile_parsers test_cuda_compile"
TARGETS="$TARGETS kgb_runner_cpu kgb-baseline-cpu kgb_bench_eval_latency kgb_core_evaluator_tests"
ninja -C "$BUILD" -t targets all 2>/dev/null | grep -q '^kgb_cuda_aten' && TARGETS="$TARGETS kgb_cuda_aten"
step build 360 "$BUILD_LOG" ninja -C "$BUILD" -j"$JOBS" $TARGETS || { note "build failed: see build.log"; tail -40 "$BUILD_LOG"; exit 1; }
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
step ctest-gpu 240 "$CTEST_LOG" ctest --test-dir "$BUILD" -L gpu -V
step ctest-evaluator 90 "$CTEST_LOG" ctest --test-dir "$BUILD" -R kgb_core_evaluator_tests --output-on-failure

VALIDATE=$OUT/validate.txt
: >"$VALIDATE"
step validate 180 "$VALIDATE" "$KGB" validate --platform cuda-sm90 --time-budget 0.5

LAT=$OUT/latency.txt
: >"$LAT"
step latency 200 "$LAT" bash "$ROOT/scripts/cuda-eval-latency.sh" "$KGB"
note "latency: $(grep 'median wall' "$LAT" | tr '\n' ' ')"

# The CPU platform's latency and timing-stability benchmark (issue figures for
# cpu-x86_64 come from a quiet many-core host like this one).
step cpu-latency 150 "$LAT" "$BUILD/tests/bench/kgb_bench_eval_latency" --runs 5
note "cpu latency: $(grep -E 'median end-to-end|spread' "$LAT" | tr '\n' ' ')"

PROF=$OUT/profile.txt
: >"$PROF"
if "$KGB" profile --help >/dev/null 2>&1; then
  step profile-ncu 120 "$PROF" "$KGB" profile blas/saxpy --platform cuda-sm90 --kernel benchmark/tasks/blas/saxpy/solutions/cuda.cu --cases n_16M
  step profile-sanitize 120 "$PROF" "$KGB" profile blas/saxpy --platform cuda-sm90 --kernel tests/cuda/hacks/out_of_bounds_saxpy.cu --sanitize --no-ncu --cases prime_1009
else
  note "kgb has no profile command (agent/cli wiring missing); the gpu tests above ran the profile library"
fi

FID=$OUT/fidelity.txt
: >"$FID"
step fidelity 200 "$FID" "$BUILD/tests/cuda/kgb-cuda-timing-fidelity"

note "figures: $(grep -E 'timing fidelity' "$FID" | tail -1); $(grep -E 'task\(s\) on' "$VALIDATE" | tail -1)"
note "done in $(elapsed) s"
