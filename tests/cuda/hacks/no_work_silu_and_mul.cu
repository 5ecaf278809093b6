// Planted hack (vllm/silu_and_mul): returns success without launching anything.
#include <cuda_runtime.h>

#include "kgb_kernel.h"

extern "C" int kgb_vllm_silu_and_mul(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  (void)out;
  (void)input;
  (void)stream;
  return KGB_OK;
}
