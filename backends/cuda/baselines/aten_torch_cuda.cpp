// ATen baselines on CUDA through libtorch (the libtorch inside a PyTorch
// wheel, found with its CMake config; optional, KGB_WITH_TORCH_CUDA).
//
// Built as a shared library that the baseline runner loads only when an ATen
// task asks for it: loading libtorch's CUDA libraries takes seconds, which
// evaluations of BLAS and vLLM tasks should not pay.
//
// The harness buffers are wrapped without copies (from_blob with the views'
// sizes and strides) and every op runs on the harness stream through a
// stream guard. aten/mm is not here: it is timed against cuBLAS in the
// runner itself (ATen's CUDA mm is cuBLAS).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <vector>

#include "kgb_runner_abi.h"

namespace {

at::ScalarType aten_dtype(int32_t dtype) {
  switch (dtype) {
    case KGB_BOOL: return at::kBool;
    case KGB_I8: return at::kChar;
    case KGB_I32: return at::kInt;
    case KGB_I64: return at::kLong;
    case KGB_F16: return at::kHalf;
    case KGB_BF16: return at::kBFloat16;
    case KGB_F32: return at::kFloat;
    case KGB_F64: return at::kDouble;
    default: return at::ScalarType::Undefined;
  }
}

// The device that holds the harness buffers (the runner selects it; this
// library's CUDA runtime has a current device of its own).
c10::DeviceIndex device_of(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess || attr.type != cudaMemoryTypeDevice) {
    cudaGetLastError();
    return 0;
  }
  return static_cast<c10::DeviceIndex>(attr.device);
}

at::Tensor view_of(const kgb_tensor* t, c10::DeviceIndex device) {
  return at::from_blob(t->data, at::IntArrayRef(t->sizes, t->rank), at::IntArrayRef(t->strides, t->rank),
                       at::TensorOptions().dtype(aten_dtype(t->dtype)).device(at::kCUDA, device));
}

// Runs `op` with the harness stream as ATen's current stream.
template <typename Op>
int on_stream(const kgb_tensor* any, kgb_stream stream, Op op) {
  try {
    const c10::DeviceIndex device = device_of(any->data);
    c10::cuda::CUDAGuard device_guard(device);
    c10::cuda::CUDAStreamGuard stream_guard(c10::cuda::getStreamFromExternal(static_cast<cudaStream_t>(stream), device));
    op(device);
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

bool known(const kgb_tensor* t) { return aten_dtype(t->dtype) != at::ScalarType::Undefined; }

// aten/add: self, other, alpha, out.
int add_aten(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  if (!known(t[3])) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(t[3]) == 0) return KGB_OK;
  return on_stream(t[3], stream, [&](c10::DeviceIndex d) {
    at::Tensor out = view_of(t[3], d);
    const double alpha = s[2].f;
    const at::Scalar a = at::isIntegralType(out.scalar_type(), false) ? at::Scalar(static_cast<int64_t>(std::llround(alpha)))
                                                                      : at::Scalar(alpha);
    at::add_out(out, view_of(t[0], d), view_of(t[1], d), a);
  });
}

// aten/bernoulli: self, seed, out.
int bernoulli_aten(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  if (!known(t[2])) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(t[2]) == 0) return KGB_OK;
  return on_stream(t[2], stream, [&](c10::DeviceIndex d) {
    static at::Generator generator = at::make_generator<at::CUDAGeneratorImpl>(d);
    {
      std::lock_guard<std::mutex> lock(generator.mutex());
      generator.set_current_seed(static_cast<uint64_t>(s[1].i));
    }
    at::Tensor out = view_of(t[2], d);
    at::bernoulli_out(out, view_of(t[0], d), generator);
  });
}

// aten/cumsum: self, dim, out.
int cumsum_aten(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  if (!known(t[2])) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(t[2]) == 0) return KGB_OK;
  return on_stream(t[2], stream, [&](c10::DeviceIndex d) {
    at::Tensor out = view_of(t[2], d);
    at::cumsum_out(out, view_of(t[0], d), s[1].i, out.scalar_type());
  });
}

// aten/index_select: self, dim, index, out.
int index_select_aten(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  if (!known(t[3])) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(t[3]) == 0) return KGB_OK;
  return on_stream(t[3], stream, [&](c10::DeviceIndex d) {
    at::Tensor out = view_of(t[3], d);
    at::index_select_out(out, view_of(t[0], d), s[1].i, view_of(t[2], d));
  });
}

// aten/softmax: self, dim, out.
int softmax_aten(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  if (!known(t[2])) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(t[2]) == 0) return KGB_OK;
  return on_stream(t[2], stream, [&](c10::DeviceIndex d) {
    at::Tensor out = view_of(t[2], d);
    at::softmax_out(out, view_of(t[0], d), s[1].i);
  });
}

// aten/sort: self, dim, descending, values, indices.
int sort_aten(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  if (!known(t[3])) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(t[3]) == 0) return KGB_OK;
  return on_stream(t[3], stream, [&](c10::DeviceIndex d) {
    at::Tensor values = view_of(t[3], d), indices = view_of(t[4], d);
    at::sort_out(values, indices, view_of(t[0], d), s[1].i, s[2].i != 0);
  });
}

// aten/sum: self, dim, keepdim, out.
int sum_aten(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  if (!known(t[3])) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(t[3]) == 0) return KGB_OK;
  return on_stream(t[3], stream, [&](c10::DeviceIndex d) {
    at::Tensor out = view_of(t[3], d);
    std::vector<int64_t> dims{s[1].i};
    at::sum_out(out, view_of(t[0], d), dims, s[2].i != 0, out.scalar_type());
  });
}

struct Entry {
  const char* task;
  kgb_invoke_fn fn;
};

constexpr Entry kEntries[] = {
    {"aten/add", add_aten},           {"aten/bernoulli", bernoulli_aten}, {"aten/cumsum", cumsum_aten},
    {"aten/index_select", index_select_aten}, {"aten/softmax", softmax_aten}, {"aten/sort", sort_aten},
    {"aten/sum", sum_aten},
};

}  // namespace

// Looked up by the CUDA baseline runner after loading this library.
extern "C" __attribute__((visibility("default"))) kgb_invoke_fn kgb_cuda_aten_baseline(const char* task_id) {
  for (const auto& e : kEntries)
    if (std::strcmp(e.task, task_id) == 0) return e.fn;
  return nullptr;
}
