// aten/exponential_ on CUDA through libtorch: the dispatcher call cannot pass
// the task's `seed` (ATen takes a Generator), so a generator seeded with it.
#include <ATen/cuda/CUDAGeneratorImpl.h>

#include <mutex>

#include "kgb_baseline.h"
#include "torch_cuda_common.h"
#include "kgb_entries/aten/exponential_.h"

namespace {

int exponential_aten(kgb_tensor* self, double lambd, int64_t seed, kgb_stream stream) {
  if (kgb::aten_dispatch::scalar_type_of(self->dtype) == at::ScalarType::Undefined) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(self) == 0) return KGB_OK;
  return kgb::cuda_torch::on_stream(self->data, stream, [&](const at::Device& device) {
    static at::Generator generator = at::make_generator<at::CUDAGeneratorImpl>(device.index());
    {
      std::lock_guard<std::mutex> lock(generator.mutex());
      generator.set_current_seed(static_cast<uint64_t>(seed));
    }
    kgb::aten_dispatch::view_of(self, device).exponential_(lambd, generator);
    return KGB_OK;
  });
}

}  // namespace

KGB_BASELINE(aten_exponential_, "aten", exponential_aten);
