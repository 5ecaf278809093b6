// Baseline for aten/bernoulli: ATen's bernoulli_out with a CPU generator
// seeded from the seed scalar, on views of the harness buffers. libtorch 1.13
// has no CPU bernoulli for half, so f16 draws from the probabilities upcast to
// float (exact) and rounds the 0/1 results into out.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <exception>
#include <vector>

#include "kgb_baseline.h"
#include "kgb_entries/aten/bernoulli.h"

namespace {

at::ScalarType scalar_type(int32_t dtype) {
  switch (dtype) {
    case KGB_F32: return at::kFloat;
    case KGB_F64: return at::kDouble;
    case KGB_F16: return at::kHalf;
    case KGB_BF16: return at::kBFloat16;
    default: return at::ScalarType::Undefined;
  }
}

at::Tensor wrap(const kgb_tensor* t) {
  const std::vector<int64_t> sizes(t->sizes, t->sizes + t->rank), strides(t->strides, t->strides + t->rank);
  return at::from_blob(t->data, sizes, strides, at::TensorOptions().dtype(scalar_type(t->dtype)));
}

// The generic dispatcher call cannot pass `seed`: ATen takes a Generator.
int bernoulli_aten(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream) {
  if (scalar_type(out->dtype) == at::ScalarType::Undefined) return KGB_ERR_UNSUPPORTED;
  try {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed));
    at::Tensor o = wrap(out);
    if (out->dtype == KGB_F16) {
      o.copy_(at::bernoulli(wrap(self).to(at::kFloat), gen));
    } else {
      at::bernoulli_out(o, wrap(self), gen);
    }
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(aten_bernoulli, "aten", bernoulli_aten);
