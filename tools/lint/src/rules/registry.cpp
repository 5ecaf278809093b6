// The rule catalog: names, descriptions, options and where each rule runs.
#include "rules/rules.h"

namespace kgb::lint::detail {
namespace {

constexpr Language kAll[] = {Language::Cpp, Language::Cuda, Language::Hip, Language::OpenCLHost, Language::OpenCLC};
constexpr Language kHostCode[] = {Language::Cpp, Language::Cuda, Language::Hip, Language::OpenCLHost};
constexpr Language kGpu[] = {Language::Cuda, Language::Hip};

template <size_t N>
std::vector<Language> languages(const Language (&list)[N]) {
  return {list, list + N};
}

RuleOptionInfo severity_option(const char* value) {
  return {"severity", value, "reject | warn | off"};
}

RuleOptionInfo extra_option(const char* what) {
  return {"extra", "", std::string("comma-separated patterns added to the ") + what};
}

std::vector<RuleEntry> make_registry() {
  std::vector<RuleEntry> rules;
  rules.push_back({{"entry-signature",
                    "The task's entry point is defined, extern \"C\", a host function, returns int and takes exactly "
                    "the parameters of the declaration generated from the task spec.",
                    "reject",
                    {severity_option("reject")}},
                   languages(kHostCode),
                   {"cuda-device", "hip-device"},
                   true,
                   create_entry_signature});
  rules.push_back({{"banned-api",
                    "Calls, references, types and macros of libraries that implement operators (cuBLAS, cuDNN, "
                    "OpenBLAS, ATen, ...) and of the task's banned_apis, matched on the real declaration.",
                    "reject",
                    {severity_option("reject"), extra_option("banned APIs"),
                     {"use-defaults", "true", "also ban the vendor libraries of default_banned_apis()"}}},
                   languages(kAll),
                   {},
                   false,
                   create_banned_api});
  rules.push_back({{"process-escape",
                    "Processes, the dynamic loader, runtime code loading, the environment, files, sockets, signals, "
                    "exit hooks and syscalls (also in inline and top-level assembly).",
                    "reject",
                    {severity_option("reject"), extra_option("forbidden names")}},
                   languages(kAll),
                   {},
                   false,
                   create_process_escape});
  rules.push_back({{"mutable-global-state",
                    "Non-const namespace-scope, class-static, function-static, thread_local, __device__ and "
                    "__managed__ variables and OpenCL program-scope globals: state that survives between calls "
                    "(the caching hack). const/constexpr data, __constant__, __shared__ and OpenCL __constant and "
                    "__local are fine.",
                    "reject",
                    {severity_option("reject")}},
                   languages(kAll),
                   {},
                   false,
                   create_mutable_global_state});
  rules.push_back({{"timing-api",
                    "Clocks, timers, events and cycle counters: std::chrono, clock_gettime, cudaEvent*, clock64, "
                    "rdtsc, %globaltimer (also in inline assembly).",
                    "reject",
                    {severity_option("reject"), extra_option("timing APIs")}},
                   languages(kAll),
                   {},
                   false,
                   create_timing_api});
  rules.push_back({{"extra-concurrency",
                    "Threads on every backend; on device backends also streams, graphs, stream capture, host "
                    "callbacks, extra contexts and command queues, per-thread default streams and device-side "
                    "launches. OpenMP stays allowed on CPUs.",
                    "reject",
                    {severity_option("reject"), extra_option("forbidden names")}},
                   languages(kAll),
                   {},
                   false,
                   create_extra_concurrency});
  rules.push_back({{"device-limits",
                    "Persisting-L2 and access-policy-window settings, device limits and device-wide cache or memory "
                    "pool configuration. Per-kernel settings (cudaFuncSetAttribute, cudaFuncSetCacheConfig) are fine.",
                    "reject",
                    {severity_option("reject"), extra_option("forbidden names")}},
                   languages(kGpu),
                   {},
                   false,
                   create_device_limits});
  rules.push_back({{"launch-stream",
                    "Kernel launches and asynchronous copies that use the default stream instead of the stream the "
                    "entry receives, and synchronous copies on the legacy default stream.",
                    "warn",
                    {severity_option("warn")}},
                   languages(kGpu),
                   {"cuda-device", "hip-device"},
                   false,
                   create_launch_stream});
  rules.push_back({{"precision-downgrade",
                    "Half, bfloat16, tf32 or fp8 types, conversions, intrinsics and PTX where the task's dtypes do "
                    "not include them: the kernel computes in less precision than the task asks for.",
                    "warn",
                    {severity_option("warn")}},
                   languages(kAll),
                   {},
                   true,
                   create_precision_downgrade});
  rules.push_back({{"include-allowlist",
                    "#include directives outside the platform's allowlist (absolute paths and '..' never pass), "
                    "any #include in an OpenCL C program, and #embed.",
                    "reject",
                    {severity_option("reject"), {"extra", "", "comma-separated header globs added to the allowlist"}}},
                   languages(kAll),
                   {},
                   false,
                   create_include_allowlist});
  rules.push_back({{"opencl-kernel-source",
                    "An OpenCL launcher that builds or launches kernels embeds its OpenCL C program as a string "
                    "literal defining a kernel, so the device code can be checked.",
                    "reject",
                    {severity_option("reject")}},
                   {Language::OpenCLHost},
                   {},
                   false,
                   create_opencl_kernel_source});
  rules.push_back({{"line-marker",
                    "#line directives, GNU line markers (# N \"file\" flags) and #pragma GCC/clang system_header "
                    "in candidate code, OpenCL programs included: they rename the candidate's lines, up to passing "
                    "them off as a system header.",
                    "reject",
                    {severity_option("reject")}},
                   languages(kAll),
                   {},
                   false,
                   nullptr});
  rules.push_back({{"opencl-conditional",
                    "A preprocessor conditional, #define or #undef in an OpenCL C program that names a macro the "
                    "driver defines (reserved names, cl_* and CL_* extension and version names, __opencl_c_* "
                    "features, FP_FAST_FMA*, profile and vendor names): the driver's preprocessor, which lint cannot "
                    "run, decides such branches.",
                    "reject",
                    {severity_option("reject"), {"extra", "", "comma-separated macro names allowed all the same"}}},
                   {Language::OpenCLC},
                   {},
                   false,
                   nullptr});
  rules.push_back({{"unlinted-code",
                    "A line the platform's compiler compiles (its own preprocessor, run with the compile step's "
                    "flags) that no lint pass parsed: a branch on __GNUC__, __clang__, __NVCC__, __OPTIMIZE__, "
                    "__has_include, _OPENMP, ... that the compiler takes and Clang does not, or a parse that stopped "
                    "early.",
                    "reject",
                    {severity_option("reject")}},
                   languages(kHostCode),
                   {},
                   false,
                   nullptr});
  rules.push_back({{"inactive-code",
                    "Forbidden names and #includes inside preprocessor branches no lint pass compiled (#ifdef "
                    "__NVCC__, #if __GNUC__ >= 12, ...): the platform's compiler may still compile them.",
                    "reject",
                    {severity_option("reject")}},
                   languages(kHostCode),
                   {},
                   false,
                   nullptr});
  return rules;
}

}  // namespace

const std::vector<RuleEntry>& rule_registry() {
  static const std::vector<RuleEntry> registry = make_registry();
  return registry;
}

}  // namespace kgb::lint::detail

namespace kgb::lint {

std::vector<RuleInfo> rule_catalog() {
  std::vector<RuleInfo> out;
  for (const auto& entry : detail::rule_registry()) out.push_back(entry.info);
  return out;
}

}  // namespace kgb::lint
