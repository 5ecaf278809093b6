// Baseline for aten/poisson: ATen's poisson with a CPU generator seeded from
// the seed scalar, on a view of the harness's self, its result copied into
// out (the generic dispatcher call cannot pass `seed`: ATen takes a
// Generator, and aten::poisson has no out= variant in libtorch 1.13).
// libtorch 1.13 has no CPU poisson for half: f16 draws from the rates
// upcast to float (exact) and rounds the counts into out.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <exception>

#include "aten_dispatch.h"
#include "kgb_baseline.h"
#include "kgb_entries/aten/poisson.h"

namespace {

int poisson_aten(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream) {
  if (out->dtype != KGB_F32 && out->dtype != KGB_F64 && out->dtype != KGB_F16 && out->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  try {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed));
    const at::Device cpu(at::kCPU);
    at::Tensor rates = kgb::aten_dispatch::view_of(self, cpu);
    if (self->dtype == KGB_F16) rates = rates.to(at::kFloat);
    kgb::aten_dispatch::view_of(out, cpu).copy_(at::poisson(rates, gen));
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(aten_poisson, "aten", poisson_aten);
