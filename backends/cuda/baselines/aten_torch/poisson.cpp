// aten/poisson on CUDA through libtorch: the dispatcher call cannot pass the
// task's `seed` (ATen takes a Generator), so a generator seeded with it; the
// functional result is copied into the harness's out view on the same stream.
#include <ATen/cuda/CUDAGeneratorImpl.h>

#include <mutex>

#include "kgb_baseline.h"
#include "torch_cuda_common.h"
#include "kgb_entries/aten/poisson.h"

namespace {

int poisson_aten(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (kgb::aten_dispatch::scalar_type_of(out->dtype) == at::ScalarType::Undefined) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  return kgb::cuda_torch::on_stream(out->data, stream, [&](const at::Device& device) {
    static at::Generator generator = at::make_generator<at::CUDAGeneratorImpl>(device.index());
    {
      std::lock_guard<std::mutex> lock(generator.mutex());
      generator.set_current_seed(static_cast<uint64_t>(seed));
    }
    kgb::aten_dispatch::view_of(out, device).copy_(at::poisson(kgb::aten_dispatch::view_of(self, device), generator));
    return KGB_OK;
  });
}

}  // namespace

KGB_BASELINE(aten_poisson, "aten", poisson_aten);
