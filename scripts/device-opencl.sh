#!/usr/bin/env bash
# Validates every OpenCL solution on an NVIDIA GPU through NVIDIA's OpenCL
# driver: `kgb validate --platform opencl-nvidia`.
#
# Run it from a checkout on the GPU host:
#   scripts/device-opencl.sh [extra kgb validate options, e.g. --tasks 'aten/*']
# Environment:
#   KGB_BUILD_DIR  build folder (default: <checkout>/build-device-opencl); the
#                  evaluation half is configured and built there when needed
#   KGB_JOBS       parallel build jobs (default: the number of cores)
#   KGB_CMAKE_ARGS extra CMake arguments for the first configure (e.g. a
#                  -DCMAKE_INCLUDE_PATH for headers installed outside /usr)
#
# The NVIDIA ICD is set up in a temporary folder (an .icd file naming
# libnvidia-opencl.so.1, OCL_ICD_VENDORS pointing at the folder) so that clinfo
# and the availability probe see the NVIDIA platform without touching
# /etc/OpenCL/vendors. The runner processes themselves get their ICD settings
# from backends/platforms/opencl-nvidia.json.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${KGB_BUILD_DIR:-$root/build-device-opencl}
jobs=${KGB_JOBS:-$(nproc)}

work=$(mktemp -d "${TMPDIR:-/tmp}/kgb-opencl-nvidia.XXXXXX")
trap 'rm -rf "$work"' EXIT

library=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1 / {print $NF; exit}')
if [[ -z "$library" ]]; then
  echo "error: libnvidia-opencl.so.1 is not in the dynamic linker's cache: is the NVIDIA driver installed?" >&2
  exit 3
fi
mkdir -p "$work/vendors"
echo "$library" > "$work/vendors/nvidia.icd"
export OCL_ICD_VENDORS="$work/vendors"
echo "NVIDIA OpenCL ICD: $library (OCL_ICD_VENDORS=$OCL_ICD_VENDORS)"
if command -v clinfo > /dev/null; then clinfo -l || true; fi

# OpenCL headers and loader: the system's when installed, else the CUDA toolkit's.
cmake_opencl=()
if [[ ! -e /usr/include/CL/cl.h ]]; then
  cuda=${CUDA_HOME:-/usr/local/cuda}
  if [[ -e "$cuda/include/CL/cl.h" && -e "$cuda/lib64/libOpenCL.so" ]]; then
    cmake_opencl=(-DOpenCL_INCLUDE_DIR="$cuda/include" -DOpenCL_LIBRARY="$cuda/lib64/libOpenCL.so")
  fi
fi

if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKGB_BUILD_AGENT=OFF \
    -DKGB_WITH_CLANG_TOOLING=OFF -DKGB_WITH_TORCH=OFF -DKGB_WITH_OPENCL=ON -DKGB_BUILD_TESTS=OFF \
    "${cmake_opencl[@]}" ${KGB_CMAKE_ARGS:-}
fi
ninja -C "$build" -j "$jobs" kgb kgb_runner_opencl kgb-opencl-probe kgb-baseline-opencl

kgb="$build/agent/cli/kgb"
"$kgb" platforms
exec "$kgb" validate --platform opencl-nvidia "$@"
