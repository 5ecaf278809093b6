// Baseline for aten/exponential_: ATen's exponential_ with a CPU generator
// seeded from the seed scalar, on a view of the harness buffer (the generic
// dispatcher call cannot pass `seed`: ATen takes a Generator). libtorch 1.13
// has no CPU exponential for half, so f16 draws in float and rounds the
// draws into self.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <exception>

#include "aten_dispatch.h"
#include "kgb_baseline.h"
#include "kgb_entries/aten/exponential_.h"

namespace {

int exponential_aten(kgb_tensor* self, double lambd, int64_t seed, kgb_stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  try {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed));
    at::Tensor s = kgb::aten_dispatch::view_of(self, at::Device(at::kCPU));
    if (self->dtype == KGB_F16) {
      at::Tensor draws = at::empty(s.sizes(), s.options().dtype(at::kFloat));
      draws.exponential_(lambd, gen);
      s.copy_(draws);
    } else {
      s.exponential_(lambd, gen);
    }
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(aten_exponential_, "aten", exponential_aten);
