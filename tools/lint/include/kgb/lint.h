// kgb lint: the static stage of an evaluation (DESIGN 3.4 step 1, 3.5 layer L1).
//
// lint() parses one candidate source with Clang (C++, CUDA, HIP, OpenCL C and the
// C++ host launchers of OpenCL candidates; CUDA and HIP once for the device and
// once for the host, so both sides of #ifdef __CUDA_ARCH__ are seen), reports
// parse errors as the same
// Diagnostic records the compile step produces, checks the entry point against
// the task's declaration and runs the anti-cheating rules. check_object_symbols()
// inspects the compiled object: its undefined symbols must be on the platform's
// allowlist, and it must not define (interpose) a runtime function.
//
// This header is free of Clang and LLVM on purpose: the evaluator and the CLI
// use it without libTooling headers.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kgb/diagnostic.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace kgb {
struct EvalHooks;  // kgb/evaluator.h
}  // namespace kgb

namespace kgb::lint {

// What a source is parsed as. OpenCLHost is the C++ launcher of an OpenCL
// candidate; the OpenCL C programs it embeds are found and parsed as OpenCLC
// (see "OpenCL candidates" below).
enum class Language { Cpp, Cuda, Hip, OpenCLHost, OpenCLC };

std::string_view language_name(Language language);  // "c++", "cuda", "hip", "opencl-host", "opencl-c"
// By backend: cpu -> Cpp, cuda -> Cuda, hip -> Hip, opencl -> OpenCLHost.
std::optional<Language> language_for_backend(std::string_view backend);
Language language_for(const Platform& platform);  // Cpp for an unknown backend
// By file extension: .cpp/.cc/.cxx/.c++ -> Cpp, .cu -> Cuda, .hip -> Hip, .cl -> OpenCLC.
std::optional<Language> language_for_file(const std::filesystem::path& file);

// Fork: the parse runs in a forked child with an address-space limit and a
// deadline, and the report comes back over a pipe. A hang or a crash inside the
// parser becomes a finding. InProcess: no protection, no time limit; for
// measurements and debugging.
enum class Isolation { Fork, InProcess };

struct LintRequest {
  std::string source;
  std::string file_name = "candidate";  // shown in diagnostics and findings
  Language language = Language::Cpp;
  const Task* task = nullptr;          // entry signature, banned APIs, dtypes; optional
  const Platform* platform = nullptr;  // backend, arch, include and symbol allowlists, -I/-D flags; optional
  double time_limit_seconds = 10;
  std::size_t size_limit_bytes = std::size_t{1} << 20;
  std::size_t memory_limit_bytes = std::size_t{4} << 30;  // address space of the forked child
  Isolation isolation = Isolation::Fork;
  // Extra include folders, searched after the platform's and the ABI folder
  // (kgb::abi_include_dir(), which holds kgb_kernel.h).
  std::vector<std::string> include_dirs;
  // Precompiled preludes (common runtime headers) are cached here. Empty: the
  // KGB_LINT_CACHE environment variable, else $XDG_CACHE_HOME/kgb/lint, else
  // ~/.cache/kgb/lint. An unwritable folder only costs speed.
  std::filesystem::path cache_dir;
  bool use_precompiled_prelude = true;
  // Per-rule settings, "<rule>.<option>" -> value. Every rule understands
  // "<rule>.severity" = reject | warn | off; other options are listed by rule_catalog().
  std::map<std::string, std::string> rule_options;
};

// A Finding (rule, layer "L1", severity, message, location "file:line:col")
// with what a model needs to fix it.
struct LintFinding : Finding {
  std::string fix_hint;
  std::string file;
  int line = 0;  // 0: the finding concerns the whole file
  int column = 0;
  std::string excerpt;  // the source line
};

struct LintReport {
  std::vector<Diagnostic> diagnostics;  // parse errors (error, fatal) with their notes
  std::vector<LintFinding> findings;
  // Clang parsed the source without errors. When false the rules still ran on
  // what the parser recovered; the platform compiler stays the authority on
  // whether the source compiles (Clang's CUDA dialect differs from nvcc's).
  bool parse_ok = false;
  double seconds = 0;  // wall time of lint(), the fork included
  std::vector<std::string> passes;  // what was parsed: "c++", "cuda-device", "cuda-host", "opencl-c@12", ...
  // Set when lint itself could not run (no fork, no CUDA headers on this
  // machine): an infrastructure failure, not a verdict on the candidate.
  std::string infra_error;

  bool rejected() const;  // any finding with severity "reject"
  bool clean() const { return parse_ok && !rejected(); }
  // The findings as the verdict stores them: the fix hint folded into the message.
  std::vector<Finding> verdict_findings() const;
};

LintReport lint(const LintRequest& request);

void to_json(nlohmann::json& j, const LintFinding& finding);
void from_json(const nlohmann::json& j, LintFinding& finding);
void to_json(nlohmann::json& j, const LintReport& report);
void from_json(const nlohmann::json& j, LintReport& report);

// ---------------------------------------------------------------------------
// Rules
//
// Every rule names itself in its findings. Rules (default severity):
//   entry-signature        reject  the task's entry exists, is extern "C", a host function,
//                                  and its parameter types match entry_declaration(task)
//   banned-api             reject  library calls the task forbids (Task::banned_apis) and the
//                                  vendor libraries no task may call (default_banned_apis())
//   process-escape         reject  processes, loader, environment, files, sockets, signals,
//                                  syscalls, runtime code loading
//   mutable-global-state   reject  non-const namespace-scope, class-static, function-static,
//                                  thread_local or __device__/__managed__ variables and
//                                  OpenCL program-scope globals (the caching hack)
//   timing-api             reject  clocks, timers, events, cycle counters (also in inline asm)
//   extra-concurrency      reject  threads everywhere (OpenMP stays allowed on CPUs); streams,
//                                  graphs, stream capture, host callbacks, command queues,
//                                  per-thread default streams on device backends
//   device-limits          reject  persisting-L2 and access-policy windows, device limits and
//                                  device-wide cache or memory configuration
//   launch-stream          warn    kernels and async copies issued on the default stream
//                                  instead of the stream the entry receives
//   precision-downgrade    warn    half/bfloat16 where the task has no such dtype; tf32 and fp8
//   include-allowlist      reject  #include outside the platform's allowlist; #embed
//   opencl-kernel-source   reject  an OpenCL host launcher without an embedded OpenCL C program
//   inactive-code          reject  a forbidden name or #include in a preprocessor branch the lint
//                                  did not compile (e.g. #ifdef __NVCC__): those branches may
//                                  still be compiled by the platform's compiler
//   unlinted-code          reject  a line the platform's compiler compiles (its preprocessor, run
//                                  with the compile step's command) that no lint pass parsed
//   line-marker            reject  #line, GNU line markers and system_header pragmas anywhere
//   opencl-conditional     reject  an OpenCL C directive naming a driver's macro (__OPENCL_VERSION__,
//                                  cl_khr_*, vendor names): the driver decides such branches
// and, from lint() itself: lint-input-too-large, lint-input-not-text, lint-timeout,
// lint-crashed (all reject). From check_object_symbols(): symbol-allowlist,
// symbol-interposition (reject) and symbol-check-failed (reject: unreadable object).
//
// Banned API patterns (Task::banned_apis and rule options): "name" matches the
// declaration with that fully qualified name (inline namespaces such as
// std::__cxx11 are ignored; extern "C" functions by their plain name) and every
// member of it ("std::thread" also bans std::thread::join); "ns::" bans the
// members of ns only (a variable named c10 is not c10::); "*" and "?" are
// globs over the qualified name ("cudaEvent*"). A name is
// also matched where it is spelled as a macro from a header (cublasSgemm), and
// a banned macro's target (cublasSgemm_v2) is banned with it.
// ---------------------------------------------------------------------------

struct RuleOptionInfo {
  std::string name;
  std::string default_value;
  std::string description;
};

struct RuleInfo {
  std::string name;
  std::string description;
  std::string default_severity;  // reject | warn
  std::vector<RuleOptionInfo> options;
};

std::vector<RuleInfo> rule_catalog();

// ---------------------------------------------------------------------------
// OpenCL candidates
//
// The launcher is one C++ file; its OpenCL C program is every string literal
// (adjacent literals concatenated, raw literals included) that defines a kernel:
// it contains "__kernel" or "kernel" followed by "void". Each such literal is
// parsed as OpenCL C 2.0 with its lines mapped back to the launcher's lines, so
// findings point into the launcher. A launcher without such a literal is
// rejected (opencl-kernel-source): the device code must be visible to lint.
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Default allowlists, used when a platform descriptor leaves its list empty.
//
// Includes (globs, '*' crosses '/'), by backend:
//   every backend: the C and C++ standard library headers that cannot reach the
//     outside (no <thread>, <chrono>, <ctime>, <fstream>, <filesystem>, <future>,
//     <csignal>, POSIX or OS headers), "kgb_kernel.h", "kgb_half.h".
//   cpu:    + omp.h and the SIMD intrinsic headers (x86 *intrin.h, arm_neon.h,
//             arm_sve.h, arm_fp16.h, arm_bf16.h, riscv_vector.h).
//   cuda:   + cuda_runtime.h, cuda_runtime_api.h, cuda_fp16.h, cuda_bf16.h, cuda_fp8.h,
//             mma.h, cooperative_groups(.h and /*), cuda/* (libcu++), cub/*, thrust/*,
//             cuda_pipeline*.h, cuda_awbarrier*.h, curand_kernel.h, math_constants.h,
//             device_launch_parameters.h, vector_types.h, cuComplex.h, crt/*.
//   hip:    + hip/* (runtime, fp16, bf16, cooperative groups), hipcub/*, rocprim/*.
//   opencl: + kgb_opencl.h, CL/cl.h, CL/opencl.h (launcher only; OpenCL C programs
//             may include nothing).
// Undefined symbols (ECMAScript regexes, matched against the raw and the
// demangled name), by backend:
//   every backend: libc memory and string functions, libm (also libmvec _ZGV*),
//     printf-style output to stdout/stderr, operator new/delete, the C++ ABI
//     (__cxa_*, unwinding, personality, stack protector, std::__throw_*),
//     compiler runtime helpers (half/bf16 conversion, complex and 128-bit
//     arithmetic, __cpu_model).
//   cpu:    + OpenMP (GOMP_*, __kmpc_*, omp_* except omp_get_wtime/omp_get_wtick).
//   cuda:   + the CUDA runtime's registration and launch (__cuda*), error queries,
//             allocation and copies, symbol copies, function attributes, occupancy,
//             device and property queries, stream and device synchronisation.
//   hip:    + the same for HIP (__hip*, hip*).
//   opencl: + kgb_cl_* and the OpenCL API except new contexts and command queues,
//             event profiling, binary or IL programs, native kernels and callbacks.
// ---------------------------------------------------------------------------

std::vector<std::string> default_allowed_includes(std::string_view backend);
std::vector<std::string> default_allowed_symbols(std::string_view backend);
// What the CPU toolchain itself emits for atomics on a target `arch`
// (Platform::arch): libatomic's __atomic_* and libgcc's __sync_* helpers
// everywhere, and on aarch64 the outline-atomics family
// __aarch64_{cas,swp,ldadd,ldclr,ldeor,ldset}{1,2,4,8,16}_{relax,acq,rel,acq_rel}.
// Always added for CPU platforms, also to a platform's own allowlist.
std::vector<std::string> toolchain_atomic_helpers(std::string_view arch);
// Vendor libraries that implement operators, banned for every task (patterns as
// for Task::banned_apis): libtorch/ATen/c10, Eigen, BLAS/LAPACK(E)/MKL/oneDNN,
// cuBLAS(Lt/Xt), cuDNN, cuFFT, cuSPARSE, cuSOLVER, cuTENSOR, cuRAND's host API,
// CUTLASS/CuTe, NPP, CLBlast, clFFT, rocBLAS/hipBLAS(Lt), MIOpen, rocFFT/hipFFT.
// task_source adds the defaults of a task source (e.g. "vllm": vllm::, flash::,
// flashinfer::).
std::vector<std::string> default_banned_apis(std::string_view task_source);

// ---------------------------------------------------------------------------
// Binary symbol check (after compilation)
// ---------------------------------------------------------------------------

struct ObjectSymbol {
  std::string name;       // as in the symbol table
  std::string demangled;  // equal to name when not a C++ name
  bool weak = false;
};

struct SymbolReport {
  bool readable = false;
  std::string error;  // why not, when not readable
  std::vector<ObjectSymbol> undefined;
  std::vector<ObjectSymbol> defined;  // global and weak definitions
  std::vector<Finding> findings;
};

// Findings: symbol-allowlist for an undefined symbol outside the platform's
// allowlist; symbol-interposition for a global C-linkage definition other than
// the entry point (or a replacement of operator new/delete), which would take
// the place of a C library, device runtime or runner function once linked.
// `entry` is the task's entry point; when empty, any one kgb_* name other than
// the runtime's kgb_cl_* / kgb_runner_* is accepted as the entry. `extra_allowed`
// adds regexes to the allowlist.
SymbolReport inspect_object_symbols(const std::filesystem::path& object, const Platform& platform,
                                    const std::string& entry = {},
                                    const std::vector<std::string>& extra_allowed = {});

// The findings of inspect_object_symbols(object, platform): an empty vector means
// the object passes. Unreadable objects give a symbol-check-failed finding.
std::vector<Finding> check_object_symbols(const std::filesystem::path& object, const Platform& platform);

// ---------------------------------------------------------------------------
// The evaluator's hooks (kgb/evaluator.h): lint() as stage 1 of `kgb eval`
// (fork isolation, the default limits) and check_object_symbols() after the
// compile. Install with kgb::set_default_eval_hooks(kgb::lint::eval_hooks()).
// When lint cannot run on this machine (e.g. no CUDA headers) the hook records
// a `lint-unavailable` warning and lets the compile decide.
// (Declared against kgb::EvalHooks alone: lint.h stays free of evaluator.h
// and verdict.h, which change far more often than lint does.)
// ---------------------------------------------------------------------------
EvalHooks eval_hooks();

}  // namespace kgb::lint
