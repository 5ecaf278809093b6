#!/usr/bin/env bash
# README command 1: install every dependency (Debian 12, as root or with sudo),
# build, and run the main job on the embedded default.
#   scripts/setup.sh            install, build, run the main job
#   scripts/setup.sh --no-run   install and build only (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hits across clones in other folders (CI builds a fresh clone).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

run_main_job=1
[[ "${1:-}" == "--no-run" ]] && run_main_job=0

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

packages=(
  build-essential cmake ninja-build ccache git pkg-config file binutils python3
  libboost1.81-dev libssl-dev nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev libcli11-dev
  libtomlplusplus-dev libsqlite3-dev
  libopenblas-dev libtorch-dev
  clang-19 libclang-19-dev llvm-19-dev libomp-19-dev
  libclang-rt-19-dev  # libFuzzer and the sanitizer runtimes (tests/fuzz)
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo libclblast-dev
  g++-aarch64-linux-gnu g++-riscv64-linux-gnu qemu-user
  linux-perf valgrind oclgrind
  chromium
  hipcc libamdhip64-dev rocm-device-libs
  slurm-wlm munge
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
  echo "== installing ${#missing[@]} Debian package(s)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Node.js for the npm packages the tests and examples run, each folder pinned by
# its package-lock.json: the interop tests' third-party packages (official OpenAI
# and Anthropic SDKs, mock-llm, claude-code-router; tests/interop/node) and the
# official MCP SDK (examples/mcp: the example agent, and the client of the MCP
# server's tests). Debian's nodejs and npm, unless both are already on PATH.
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  echo "== installing node and npm"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi
if (( $(node -p 'Number(process.versions.node.split(".")[0])') < 20 )); then
  echo "warning: node $(node --version) is older than 20: the interop tests (ctest -L interop) will fail" >&2
fi
for npm_project in tests/interop/node examples/mcp; do
  if [[ ! -f $npm_project/node_modules/.package-lock.json || $npm_project/package-lock.json -nt $npm_project/node_modules/.package-lock.json ]]; then
    echo "== installing the npm packages of $npm_project"
    (cd "$npm_project" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done

# CUDA is not a Debian package here: use the toolkit when one is installed.
cuda_flag=-DKGB_WITH_CUDA=OFF
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  cuda_flag=-DKGB_WITH_CUDA=ON
  export PATH=/usr/local/cuda/bin:$PATH
fi

echo "== configuring and building (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$cuda_flag" \
  -DKGB_BUILD_AGENT=ON -DKGB_WITH_AGENT_LOOP=ON -DKGB_WITH_CLANG_TOOLING=ON -DKGB_WITH_TORCH=ON -DKGB_WITH_OPENBLAS=ON -DKGB_WITH_OPENCL=ON > build-configure.log 2>&1 || {
  cat build-configure.log; exit 1; }
ninja -C build -j"$(nproc)"

if (( run_main_job )); then
  echo "== main job: kgb run --policy refine against the offline oracle model on cpu-x86_64"
  echo "   (every bundled task; the oracle's first answer per task does not compile and its second"
  echo "   computes a wrong result, so each failure is fed back and fixed; correct kernels are timed)"
  build/agent/cli/kgb run --policy refine --provider oracle --platform cpu-x86_64 \
    --oracle-compile-errors 1 --oracle-wrong-results 1 --time-budget 0.2 --store build/runs.db
  echo "== and kgb run --policy tool-agent, streamed, over the BLAS tasks: the oracle calls lint, compile,"
  echo "   run, profile and submit itself (native function calling) and fixes what they report"
  build/agent/cli/kgb run --policy tool-agent --provider oracle --platform cpu-x86_64 --tasks 'blas/*' --stream \
    --oracle-compile-errors 1 --oracle-wrong-results 1 --time-budget 0.2 --store build/runs.db
fi
