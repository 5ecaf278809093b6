// aten/rrelu_with_noise on CUDA through libtorch: the dispatcher call cannot
// pass the task's `seed` (ATen takes a Generator), so a generator seeded with
// it; ATen's out= kernel on views of the harness buffers, on the harness
// stream (it handles strided noise and out itself).
#include <ATen/cuda/CUDAGeneratorImpl.h>

#include <mutex>

#include "kgb_baseline.h"
#include "torch_cuda_common.h"
#include "kgb_entries/aten/rrelu_with_noise.h"

namespace {

at::Scalar aten_scalar(const kgb_scalar& s) {
  return s.dtype == KGB_F64 ? at::Scalar(s.v.f) : at::Scalar(static_cast<int64_t>(s.v.i));
}

int rrelu_with_noise_aten(const kgb_tensor* self, kgb_tensor* noise, kgb_scalar lower, kgb_scalar upper, int training,
                          int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (kgb::aten_dispatch::scalar_type_of(out->dtype) == at::ScalarType::Undefined) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  return kgb::cuda_torch::on_stream(out->data, stream, [&](const at::Device& device) {
    static at::Generator generator = at::make_generator<at::CUDAGeneratorImpl>(device.index());
    {
      std::lock_guard<std::mutex> lock(generator.mutex());
      generator.set_current_seed(static_cast<uint64_t>(seed));
    }
    at::Tensor o = kgb::aten_dispatch::view_of(out, device);
    at::Tensor n = kgb::aten_dispatch::view_of(noise, device);  // an lvalue: torch 2.x declares noise mutable (b!)
    at::rrelu_with_noise_out(o, kgb::aten_dispatch::view_of(self, device), n, aten_scalar(lower), aten_scalar(upper),
                             training != 0, generator);
    return KGB_OK;
  });
}

}  // namespace

KGB_BASELINE(aten_rrelu_with_noise, "aten", rrelu_with_noise_aten);
