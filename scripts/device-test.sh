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
#   - kgb profile (ncu) and kgb profile --sanitize on a planted bug; the
#     profile tool on the host's other platforms: kgb calibrate for
#     opencl-nvidia and cpu-x86_64, the per-kernel split of a two-kernel
#     OpenCL candidate on the NVIDIA driver, perf counters (where the host's
#     kernel allows them) or cachegrind for a cache-hostile CPU kernel, the
#     CPU and OpenCL sanitizers on planted bugs, and the profile tests,
#   - the timing-fidelity benchmark (event median vs Nsight Compute, spread
#     over five evaluations).
# Everything is written under $OUT (default ./device-test-out), at most eight
# files: summary.txt, build.log, ctest.log, validate.txt,
# fidelity.txt (calibration and timing fidelity), latency.txt (CUDA and CPU), profile.txt, oracle.txt. Each step has its own time limit so
# that the whole run stays within ten minutes on a 16-core host.
#
# Dependencies expected on the host: CUDA toolkit (nvcc, CUPTI, cuBLAS, ncu,
# compute-sanitizer), CMake, Ninja, g++, nlohmann_json, spdlog, doctest; CLI11
# may come as headers in .devdeps/include; libtorch from the PyTorch wheel,
# when python3 has torch.
#
# Usage: scripts/device-test.sh [--tasks GLOB] [--only STEP,STEP...]   (from the repository root)
#   --tasks GLOB   the tasks validated (default: all)
#   --only STEPS   run only these of: calibrate ctest validate opencl oracle latency profile fidelity
#   --shards N     validate the tasks in N concurrent processes (compiles and
#                  reference builds overlap; the GPU timings of two shards can
#                  overlap too, so use 1 for the figures of record).
#                  KGB_VALIDATE_ARGS (e.g. --no-time) goes to every kgb validate,
#                  KGB_VALIDATE_SECONDS (default 240) limits each validate step
# Also: the tasks on opencl-nvidia (the NVIDIA OpenCL driver through an ICD
# folder of our own), and the libtorch cross-check against this host's
# PyTorch 2.x (strict: no 1.13 exceptions) in oracle.txt.
# Environment: OUT (output folder), KGB_DEVICE_BUILD (build folder, default
# build-device), KGB_DEVICE_JOBS (default 16).
set -uo pipefail

TASKS=""
ONLY=""
SHARDS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --tasks) TASKS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --shards) SHARDS=$2; shift 2 ;;
    *) echo "usage: $0 [--tasks GLOB] [--only STEP,...] [--shards N]" >&2; exit 2 ;;
  esac
done
want() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }
TASK_ARGS=()
[ -n "$TASKS" ] && TASK_ARGS=(--tasks "$TASKS")

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
  -DKGB_WITH_CLANG_TOOLING=OFF -DKGB_WITH_CUDA=ON -DKGB_WITH_TORCH=ON -DKGB_WITH_OPENBLAS=ON -DKGB_WITH_OPENCL=ON
  -DCMAKE_PREFIX_PATH="$PREFIX")
# libtorch's CMake config can fail hard on a host it does not like: then go on without the ATen CUDA baselines.
step configure 180 "$BUILD_LOG" "${CONFIGURE[@]}" ||
  step configure-without-torch 180 "$BUILD_LOG" "${CONFIGURE[@]}" -DKGB_WITH_TORCH_CUDA=OFF ||
  { note "configure failed: see build.log"; exit 1; }
TARGETS="kgb kgb-baseline-cuda kgb-cuda-probe kgb-cuda-calibrate kgb_runner_cuda kgb-cuda-timing-fidelity"
TARGETS="$TARGETS test_cuda_gpu test_cuda_platforms test_profile_parsers test_cuda_compile"
TARGETS="$TARGETS kgb_runner_cpu kgb-baseline-cpu kgb_bench_eval_latency kgb_core_evaluator_tests kgb_core_sandbox_tests"
# The target list is read once: `ninja ... | grep -q` under pipefail fails when
# grep stops early and ninja dies of SIGPIPE, which dropped targets silently.
ALL_TARGETS=$(ninja -C "$BUILD" -t targets all 2>/dev/null)
for optional in kgb_cuda_aten kgb_oracle_crosscheck kgb-baseline-opencl kgb_runner_opencl kgb-opencl-probe \
    kgb-opencl-calibrate kgb_runner_cpu_sanitize kgb-cpu-calibrate kgb_profile_unit_tests kgb_profile_cpu_tests \
    kgb_profile_opencl_gpu_tests; do
  grep -q "^$optional:" <<<"$ALL_TARGETS" && TARGETS="$TARGETS $optional"
done
step build 360 "$BUILD_LOG" ninja -C "$BUILD" -j"$JOBS" $TARGETS || { note "build failed: see build.log"; tail -40 "$BUILD_LOG"; exit 1; }
KGB=$BUILD/agent/cli/kgb

PROBE_T0=$(date +%s%N)
note "probe: $("$BUILD/backends/cuda/kgb-cuda-probe" sm_90a) ($(( ($(date +%s%N) - PROBE_T0) / 1000000 )) ms)"
"$KGB" platforms 2>&1 | grep cuda | tee -a "$SUMMARY"

CAL=$OUT/fidelity.txt  # calibration and timing fidelity share a file (at most eight travel back)
: >"$CAL"
if ! want calibrate; then
  :
elif "$KGB" calibrate --help >/dev/null 2>&1; then
  step calibrate 120 "$CAL" "$KGB" calibrate --platform cuda-sm90
else
  note "kgb has no calibrate command (agent/cli wiring of profile_commands.cpp missing): running the microbenchmark alone"
  step calibrate-program 120 "$CAL" "$BUILD/backends/cuda/kgb-cuda-calibrate"
fi

CTEST_LOG=$OUT/ctest.log
: >"$CTEST_LOG"
want ctest && step ctest-cuda-fast 120 "$CTEST_LOG" ctest --test-dir "$BUILD" -R 'test_profile_parsers|test_cuda_platforms' --output-on-failure
want ctest && step ctest-gpu 240 "$CTEST_LOG" ctest --test-dir "$BUILD" -L gpu -V
want ctest && step ctest-evaluator 90 "$CTEST_LOG" ctest --test-dir "$BUILD" -R "kgb_core_evaluator_tests|kgb_core_sandbox_tests" --output-on-failure

VALIDATE=$OUT/validate.txt
: >"$VALIDATE"
# Sharded (--shards N): scripts/validate-shards.sh runs N kgb validate processes.
VALIDATE_LIMIT=${KGB_VALIDATE_SECONDS:-240}
want validate && step validate "$VALIDATE_LIMIT" "$VALIDATE" "$ROOT/scripts/validate-shards.sh" "$KGB" cuda-sm90 "$SHARDS" "${TASKS:-*}"
# The same tasks on the NVIDIA OpenCL driver: an ICD folder of our own names it.
if want opencl; then
  ICD_DIR=$BUILD/.icd  # outside $OUT: only result files travel back
  mkdir -p "$ICD_DIR" && echo libnvidia-opencl.so.1 >"$ICD_DIR/nvidia.icd"
  OCL_ICD_VENDORS=$ICD_DIR step validate-opencl-nvidia "$VALIDATE_LIMIT" "$VALIDATE" env OCL_ICD_VENDORS="$ICD_DIR" \
    "$ROOT/scripts/validate-shards.sh" "$KGB" opencl-nvidia "$SHARDS" "${TASKS:-*}"
fi
# Every task's reference against this host's PyTorch 2.x libtorch (strict: no 1.13 exceptions).
ORACLE=$OUT/oracle.txt
: >"$ORACLE"
if want oracle && [ -x "$BUILD/tests/tasks/kgb_oracle_crosscheck" ]; then
  step oracle-torch2 240 "$ORACLE" env KGB_ORACLE_STRICT=1 "$BUILD/tests/tasks/kgb_oracle_crosscheck"
  note "oracle: $(grep -E 'comparisons|test cases' "$ORACLE" | tr '\n' ' ')"
fi

LAT=$OUT/latency.txt
: >"$LAT"
want latency && step latency 200 "$LAT" bash "$ROOT/scripts/cuda-eval-latency.sh" "$KGB"
note "latency: $(grep 'median wall' "$LAT" | tr '\n' ' ')"

# The CPU platform's latency and timing-stability benchmark (issue figures for
# cpu-x86_64 come from a quiet many-core host like this one).
want latency && step cpu-latency 150 "$LAT" "$BUILD/tests/bench/kgb_bench_eval_latency" --runs 5
note "cpu latency: $(grep -E 'median end-to-end|spread' "$LAT" | tr '\n' ' ')"

PROF=$OUT/profile.txt
: >"$PROF"
if ! want profile; then
  :
elif "$KGB" profile --help >/dev/null 2>&1; then
  step profile-ncu 120 "$PROF" "$KGB" profile blas/saxpy --platform cuda-sm90 --kernel benchmark/tasks/blas/saxpy/solutions/cuda.cu --cases n_16M
  step profile-sanitize 120 "$PROF" "$KGB" profile blas/saxpy --platform cuda-sm90 --kernel tests/cuda/hacks/out_of_bounds_saxpy.cu --sanitize --no-ncu --cases prime_1009
  # The other platforms of this host (the NVIDIA OpenCL driver through an ICD folder of our own).
  NV_ICD=$BUILD/.icd
  mkdir -p "$NV_ICD" && echo libnvidia-opencl.so.1 >"$NV_ICD/nvidia.icd"
  note "perf counters here: $(perf stat -x, -e instructions true 2>&1 | tail -1)"
  step calibrate-opencl-nvidia 90 "$PROF" env OCL_ICD_VENDORS="$NV_ICD" "$KGB" calibrate --platform opencl-nvidia
  step calibrate-cpu 90 "$PROF" "$KGB" calibrate --platform cpu-x86_64
  step profile-opencl-nvidia 120 "$PROF" env OCL_ICD_VENDORS="$NV_ICD" "$KGB" profile blas/saxpy --platform opencl-nvidia \
    --kernel tests/profile/kernels/opencl_saxpy_two_kernels.cpp --cases n_16M
  step sanitize-opencl-nvidia 120 "$PROF" "$KGB" profile blas/saxpy --platform opencl-nvidia \
    --kernel tests/profile/kernels/opencl_saxpy_oob_read.cpp --sanitize --no-counters --cases prime_1009
  step profile-cpu 120 "$PROF" "$KGB" profile blas/saxpy --platform cpu-x86_64 --kernel tests/profile/kernels/cpu_saxpy_cache_hostile.cpp --cases n_16M
  step sanitize-cpu 120 "$PROF" "$KGB" profile blas/saxpy --platform cpu-x86_64 --kernel tests/profile/kernels/cpu_saxpy_oob_read.cpp --sanitize --no-counters
  step ctest-profile-opencl-nvidia 120 "$PROF" env OCL_ICD_VENDORS="$NV_ICD" ctest --test-dir "$BUILD" -R kgb_profile_opencl_gpu_tests -V
  step ctest-profile-host 240 "$PROF" ctest --test-dir "$BUILD" -R 'kgb_profile_unit_tests|kgb_profile_cpu_tests' --output-on-failure
  note "profile: $(grep -E '^calibrated|roofline peak now' "$PROF" | tr '\n' ' ')"
else
  note "kgb has no profile command (agent/cli wiring missing); the gpu tests above ran the profile library"
fi

FID=$OUT/fidelity.txt
# (created empty by the calibration step above)
want fidelity && step fidelity 200 "$FID" "$BUILD/tests/cuda/kgb-cuda-timing-fidelity"

note "figures: $(grep -E 'timing fidelity' "$FID" | tail -1); $(grep -E 'task\(s\) on' "$VALIDATE" | tail -1)"
note "done in $(elapsed) s"
