#include "defaults.h"

namespace kgb::lint {
namespace {

void append(std::vector<std::string>& out, std::initializer_list<const char*> items) {
  for (const char* item : items) out.emplace_back(item);
}

// Standard headers that give no way out of the process: no threads, clocks,
// files, signals or OS interfaces.
void append_standard_headers(std::vector<std::string>& out) {
  append(out, {"algorithm", "any", "array", "atomic", "bit", "bitset", "cassert", "cctype", "cerrno", "cfenv",
               "cfloat", "charconv", "cinttypes", "ciso646", "climits", "clocale", "cmath", "compare", "complex",
               "concepts", "cstdarg", "cstdbool", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "cuchar",
               "cwchar", "cwctype", "deque", "exception", "forward_list", "functional", "initializer_list",
               "iomanip", "ios", "iosfwd", "iostream", "istream", "iterator", "limits", "list", "locale", "map",
               "memory", "memory_resource", "mutex", "new", "numbers", "numeric", "optional", "ostream", "queue",
               "random", "ranges", "ratio", "scoped_allocator", "set", "source_location", "span", "sstream",
               "stack", "stdexcept", "streambuf", "string", "string_view", "system_error", "tuple",
               "type_traits", "typeindex", "typeinfo", "unordered_map", "unordered_set", "utility", "valarray",
               "variant", "vector", "version", "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h",
               "inttypes.h", "iso646.h", "limits.h", "locale.h", "math.h", "stdalign.h", "stdarg.h", "stdbool.h",
               "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "uchar.h", "wchar.h", "wctype.h",
               "kgb_kernel.h", "kgb_half.h"});
}

// C and C++ runtime symbols every compiled candidate may need.
void append_runtime_symbols(std::vector<std::string>& out) {
  append(out, {
      // libc memory and strings
      "mem(cpy|move|set|cmp|chr)|__mem(cpy|move|set)_chk|str(len|nlen|cmp|ncmp|cpy|ncpy|cat|ncat|chr|rchr|str|"
      "spn|cspn|tol|toul|toll|toull|tod|tof)|ato[fil]|abs|labs|llabs|div|ldiv|qsort|bsearch",
      "malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign",
      // libm (with glibc's vector variants and finite-math entry points)
      "(a?(sin|cos|tan)h?|atan2|exp|exp2|exp10|expm1|log|log2|log10|log1p|logb|ilogb|pow|sqrt|cbrt|hypot|erfc?|"
      "tgamma|lgamma|lgamma_r|ceil|floor|trunc|l?l?round|l?l?rint|nearbyint|fmod|remainder|remquo|fma|fmax|fmin|"
      "fdim|fabs|frexp|ldexp|scalbl?n|modf|nextafter|nexttoward|copysign|nan|sincos|[jy][01n])[fl]?",
      "__(.*)_finite|__(isnan|isinf|finite|fpclassify|signbit)[fl]?|_ZGV\\w+",
      // output to the standard streams
      "printf|puts|putchar|fprintf|fputs|fputc|putc|fwrite|fflush|s?n?printf|v[sf]?n?printf|"
      "__(v?f?s?n?printf)_chk|stdout|stderr",
      "_ZSt4cout|_ZSt4cerr|_ZSt4endlIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_|_ZNSo\\w+|_ZNKSo\\w+|"
      "_ZStlsI\\w+|_ZSt16__ostream_insert\\w+|_ZNSt8ios_base4Init[CD][12]Ev|_ZNKSt5ctypeIcE\\w+|"
      "_ZSt16__throw_bad_castv",
      // operator new and delete, the C++ ABI, unwinding, stack protection
      "_Z(nw|na|dl|da)\\w*",
      "__cxa_(guard_acquire|guard_release|guard_abort|atexit|pure_virtual|deleted_virtual|begin_catch|end_catch|"
      "rethrow|allocate_exception|free_exception|throw|call_terminate|throw_bad_array_new_length|"
      "get_exception_ptr|bad_cast|bad_typeid)",
      "__gxx_personality_v0|_Unwind_Resume|__dso_handle|atexit|__stack_chk_fail|__stack_chk_guard|"
      "_GLOBAL_OFFSET_TABLE_|__assert_fail|abort|__errno_location|_ZSt9terminatev",
      "_ZSt\\d+__throw_\\w+|_ZSt21__glibcxx_assert_fail\\w*|_ZTI\\w+|_ZTS\\w+|_ZTVN10__cxxabiv1\\w+|"
      "_ZNSt\\d+(exception|bad_alloc|bad_array_new_length|logic_error|runtime_error|length_error|"
      "out_of_range|invalid_argument)\\w+|_ZNKSt\\d+(exception|bad_alloc|logic_error|runtime_error)\\w+",
      "_ZNSt7__cxx1112basic_string\\w+|_ZNKSt7__cxx1112basic_string\\w+",
      "pthread_mutex_(lock|unlock|trylock)",  // std::mutex, inlined
      // compiler runtime helpers
      "__(extend|trunc)[hsdbx]f[hsdbx]f2|__gnu_(h2f|f2h)_ieee|__(mul|div)[sdxt]c3|__u?(div|mod|mul)[td]i3|"
      "__popcount[sdt]i2|__(fix|fixuns|float|floatun)\\w+|__powi[sdx]f2|__cpu_model|__cpu_features2|"
      "__cpu_indicator_init",
  });
}

}  // namespace

std::vector<std::string> default_allowed_includes(std::string_view backend) {
  std::vector<std::string> out;
  append_standard_headers(out);
  if (backend == "cpu") {
    append(out, {"omp.h", "*intrin.h", "arm_neon.h", "arm_sve.h", "arm_fp16.h", "arm_bf16.h", "arm_acle.h",
                 "riscv_vector.h"});
  } else if (backend == "cuda") {
    append(out, {"cuda_runtime.h", "cuda_runtime_api.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "mma.h",
                 "cooperative_groups.h", "cooperative_groups/*", "cuda/*", "cub/*", "thrust/*", "cuda_pipeline*.h",
                 "cuda_awbarrier*.h", "curand_kernel.h", "math_constants.h", "device_launch_parameters.h",
                 "device_functions.h", "vector_types.h", "vector_functions.h", "cuComplex.h", "cuda_occupancy.h",
                 "crt/*", "sm_*_intrinsics.h"});
  } else if (backend == "hip") {
    append(out, {"hip/*", "hipcub/*", "rocprim/*"});
  } else if (backend == "opencl") {
    append(out, {"kgb_opencl.h", "CL/cl.h", "CL/opencl.h", "CL/cl_platform.h", "CL/cl_version.h",
                 "CL/cl_ext.h", "CL/cl_half.h"});
  }
  return out;
}

std::vector<std::string> default_allowed_symbols(std::string_view backend) {
  std::vector<std::string> out;
  append_runtime_symbols(out);
  if (backend == "cpu") {
    append(out, {"GOMP_\\w+|__kmpc_\\w+|omp_(?!get_wtime|get_wtick)\\w+"});
  } else if (backend == "cuda") {
    append(out, {
        "__cuda\\w+",
        "cuda(LaunchKernel|LaunchKernelExC|LaunchCooperativeKernel|GetLastError|PeekAtLastError|GetErrorString|"
        "GetErrorName|Malloc|MallocAsync|MallocPitch|Free|FreeAsync|Memcpy|MemcpyAsync|Memcpy2D|Memcpy2DAsync|"
        "Memset|MemsetAsync|Memset2D|Memset2DAsync|MemcpyToSymbol|MemcpyToSymbolAsync|MemcpyFromSymbol|"
        "MemcpyFromSymbolAsync|GetSymbolAddress|GetSymbolSize|FuncSetAttribute|FuncSetCacheConfig|"
        "FuncGetAttributes|FuncGetName|GetFuncBySymbol|OccupancyMaxActiveBlocksPerMultiprocessor\\w*|"
        "OccupancyMaxPotentialBlockSize\\w*|OccupancyAvailableDynamicSMemPerBlock|OccupancyMaxPotentialClusterSize|"
        "OccupancyMaxActiveClusters|GetDevice|GetDeviceCount|GetDeviceProperties\\w*|DeviceGetAttribute|"
        "StreamSynchronize|StreamQuery|StreamGetPriority|StreamGetFlags|StreamGetDevice|DeviceSynchronize|"
        "PointerGetAttributes|MemGetInfo|DriverGetVersion|RuntimeGetVersion|CreateChannelDesc|MallocArray|"
        "FreeArray|CreateTextureObject|DestroyTextureObject|CreateSurfaceObject|DestroySurfaceObject)"
        "(_v\\d+)?(_ptsz|_ptds)?",
    });
  } else if (backend == "hip") {
    append(out, {
        "__hip\\w+|__gnu_(h2f|f2h)_ieee|__ockl\\w+",
        "hip(LaunchKernel|LaunchCooperativeKernel|GetLastError|PeekAtLastError|GetErrorString|GetErrorName|"
        "Malloc|MallocAsync|Free|FreeAsync|Memcpy|MemcpyAsync|Memcpy2DAsync|Memset|MemsetAsync|MemsetD\\w+|"
        "MemcpyToSymbol|MemcpyToSymbolAsync|MemcpyFromSymbol|GetSymbolAddress|FuncSetAttribute|"
        "FuncSetCacheConfig|FuncGetAttributes|OccupancyMaxActiveBlocksPerMultiprocessor\\w*|"
        "OccupancyMaxPotentialBlockSize\\w*|GetDevice|GetDeviceCount|GetDeviceProperties\\w*|DeviceGetAttribute|"
        "StreamSynchronize|StreamQuery|DeviceSynchronize|PointerGetAttributes|MemGetInfo)(_v\\d+|_spt)?",
    });
  } else if (backend == "opencl") {
    append(out, {"kgb_cl_\\w+",
                 "cl(?!CreateCommandQueue|CreateContext|GetEventProfilingInfo|CreateProgramWithBinary|"
                 "CreateProgramWithIL|CreateProgramWithBuiltInKernels|EnqueueNativeKernel|CreateUserEvent|"
                 "SetEventCallback|SetContextDestructorCallback|SetMemObjectDestructorCallback|"
                 "SetProgramReleaseCallback|GetExtensionFunctionAddress|LinkProgram|CompileProgram|"
                 "IcdGetPlatformIDsKHR)[A-Z]\\w*"});
  }
  return out;
}

std::vector<std::string> default_banned_apis(std::string_view task_source) {
  std::vector<std::string> out;
  append(out, {
      // libtorch / ATen
      "at::", "torch::", "c10::", "caffe2::",
      // CPU linear algebra and DNN libraries
      "Eigen::", "cblas_*", "openblas_*", "LAPACKE_*", "lapack_*", "mkl_*", "MKL_*", "dnnl::", "dnnl_*",
      "sgemm_", "dgemm_", "cgemm_", "zgemm_", "sgemv_", "dgemv_", "saxpy_", "daxpy_", "sdot_", "ddot_",
      "strsm_", "dtrsm_", "ssyrk_", "dsyrk_", "sgetrf_", "dgetrf_", "spotrf_", "dpotrf_",
      // NVIDIA libraries
      "cublas*", "cudnn*", "cufft*", "cusparse*", "cusolver*", "cutensor*", "curandCreateGenerator*",
      "curandGenerate*", "curandSetPseudoRandomGeneratorSeed", "cutlass::", "cute::", "nppi*", "npps*",
      "nppGetStreamContext",
      // OpenCL libraries
      "clblast::", "CLBlast*", "clblas*", "clfft*",
      // AMD libraries
      "rocblas_*", "hipblas*", "miopen*", "rocfft_*", "hipfft*", "rocsparse_*", "hipsparse*", "rocsolver_*",
      "hipsolver*",
  });
  if (task_source == "vllm") append(out, {"vllm::", "flash::", "flashinfer::", "_vllm_*"});
  return out;
}

std::vector<std::string> toolchain_atomic_helpers(std::string_view arch) {
  std::vector<std::string> out;
  if (arch.empty() || arch.rfind("sm_", 0) == 0 || arch.rfind("gfx", 0) == 0) return out;
  // libatomic, which GCC calls for atomics the target cannot do inline: any
  // size on some targets (riscv64 below 4 bytes), 16 bytes on all of them.
  append(out, {"__atomic_(load|store|exchange|compare_exchange|fetch_(add|sub|and|or|xor|nand)|"
               "(add|sub|and|or|xor|nand)_fetch|test_and_set|clear|is_lock_free|feraiseexcept)(_(1|2|4|8|16))?",
               // libgcc's legacy __sync helpers for sizes without native instructions
               "__sync_(fetch_and_(add|sub|and|or|xor|nand)|(add|sub|and|or|xor|nand)_and_fetch|"
               "val_compare_and_swap|bool_compare_and_swap|lock_test_and_set|lock_release|synchronize)"
               "(_(1|2|4|8|16))?"});
  // GCC's -moutline-atomics (on by default for aarch64-linux-gnu): every
  // atomic read-modify-write becomes a libgcc call choosing LSE or LL/SC at
  // run time.
  if (arch == "aarch64" || arch == "arm64")
    append(out, {"__aarch64_(cas|swp|ldadd|ldclr|ldeor|ldset)(1|2|4|8|16)_(relax|acq|rel|acq_rel|sync)|"
                 "__aarch64_have_lse_atomics"});
  return out;
}

namespace detail {

std::vector<std::string> effective_allowed_includes(const Platform* platform, std::string_view backend) {
  if (platform && !platform->allowed_includes.empty()) return platform->allowed_includes;
  return default_allowed_includes(backend);
}

std::vector<std::string> effective_allowed_symbols(const Platform& platform) {
  // The toolchain's own helpers are not policy: a platform's allowlist
  // replaces the default, never what its compiler emits for plain C++.
  std::vector<std::string> out =
      platform.allowed_symbols.empty() ? default_allowed_symbols(platform.backend) : platform.allowed_symbols;
  if (platform.backend == "cpu") {
    const auto helpers = toolchain_atomic_helpers(platform.arch);
    out.insert(out.end(), helpers.begin(), helpers.end());
  }
  return out;
}

}  // namespace detail
}  // namespace kgb::lint
