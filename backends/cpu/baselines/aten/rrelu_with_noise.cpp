// Baseline for aten/rrelu_with_noise: ATen's rrelu_with_noise_out with a CPU
// generator seeded from the seed scalar, on views of the harness buffers (the
// generic dispatcher call cannot pass `seed`: ATen takes a Generator).
// libtorch 1.13's CPU training kernel writes noise through its data pointer
// as if it were contiguous, so a strided noise goes through a contiguous
// copy that is written back (eval leaves it unchanged either way). f16
// training, which no CPU libtorch implements, runs ATen's float kernel on the
// widened tensors (labelled below).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <exception>

#include "aten_dispatch.h"
#include "kgb_baseline.h"
#include "kgb_entries/aten/rrelu_with_noise.h"

namespace {

at::Scalar aten_scalar(const kgb_scalar& s) {
  return s.dtype == KGB_F64 ? at::Scalar(s.v.f) : at::Scalar(static_cast<int64_t>(s.v.i));
}

int rrelu_with_noise_aten(const kgb_tensor* self, kgb_tensor* noise, kgb_scalar lower, kgb_scalar upper, int training,
                          int64_t seed, kgb_tensor* out, kgb_stream) {
  if (out->dtype != KGB_F32 && out->dtype != KGB_F64 && out->dtype != KGB_F16 && out->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  const at::Device cpu(at::kCPU);
  at::Tensor n, o, s;
  try {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed));
    n = kgb::aten_dispatch::view_of(noise, cpu);
    o = kgb::aten_dispatch::view_of(out, cpu);
    s = kgb::aten_dispatch::view_of(self, cpu);
    at::Tensor dense_noise = n.contiguous();
    at::rrelu_with_noise_out(o, s, dense_noise, aten_scalar(lower), aten_scalar(upper), training != 0, gen);
    if (!n.is_same(dense_noise)) n.copy_(dense_noise);
    return KGB_OK;
  } catch (const std::exception&) {
    if (out->dtype != KGB_F16) return KGB_ERR_INVALID;
  }
  // No CPU libtorch (1.13, 2.x) has a Half training kernel: ATen's float
  // kernel on the widened input, out and noise rounded to f16 once, which is
  // what ATen's CUDA kernel computes (a float slope, out = x * slope).
  try {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed));
    at::Tensor wide_noise = n.to(at::kFloat).contiguous();
    at::Tensor wide_out = at::empty(o.sizes(), o.options().dtype(at::kFloat));
    at::rrelu_with_noise_out(wide_out, s.to(at::kFloat), wide_noise, aten_scalar(lower), aten_scalar(upper), training != 0,
                             gen);
    o.copy_(wide_out);
    n.copy_(wide_noise);
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(aten_rrelu_with_noise, "aten", rrelu_with_noise_aten);
