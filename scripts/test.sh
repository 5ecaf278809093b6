#!/usr/bin/env bash
# README command 2: build and run the whole test suite (unit, integration, slow,
# validate, interop and slurm tests; GPU tests skip cleanly on hosts without a
# GPU, slurm tests where the Slurm daemons cannot start), as many tests at a
# time as there are cores (tests that time things run alone).
#   scripts/test.sh [extra ctest arguments]
#   KGB_TASK_SWEEP=all scripts/test.sh     the full sweep: every task on every target
# docs/ci.md describes the suites and which tasks each one covers.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hits across clones in other folders (CI builds a fresh clone).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
if [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
if [[ ! -f build/build.ninja ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "-DKGB_WITH_CUDA=$([[ -x /usr/local/cuda/bin/nvcc ]] && echo ON || echo OFF)" \
    -DKGB_BUILD_AGENT=ON -DKGB_WITH_AGENT_LOOP=ON -DKGB_WITH_CLANG_TOOLING=ON -DKGB_WITH_TORCH=ON -DKGB_WITH_OPENBLAS=ON -DKGB_WITH_OPENCL=ON
fi
ninja -C build -j"$(nproc)"
# The per-task validations check one input seed per case; the full sweep two.
if [[ "${KGB_TASK_SWEEP:-}" == all ]]; then export KGB_VALIDATE_SEEDS=${KGB_VALIDATE_SEEDS:-2}; fi
cd build
ctest -j"$(nproc)" --output-on-failure --label-exclude perf "$@"
# The fuzz targets (clang-19, libFuzzer): a short run of each, about a minute
# on 2 cores; the long run is scripts/fuzz.sh.
cd ..
if command -v clang++-19 >/dev/null; then
  if [[ ! -f build-fuzz/build.ninja ]]; then
    cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-19
  fi
  ninja -C build-fuzz -j"$(nproc)"
  ctest --test-dir build-fuzz -j"$(nproc)" --output-on-failure -L fuzz
fi
