/* kgb_kernel.h: the kernel ABI shared by the harness and every candidate.
 *
 * A candidate implements one entry point per task, declared from the task spec:
 *     extern "C" int kgb_<source>_<name>(<params>, kgb_stream stream);
 * Tensor parameters come as kgb_tensor views; inputs are `const kgb_tensor*`,
 * outputs (pre-allocated by the harness) and in-place tensors are `kgb_tensor*`.
 * Scalars come as int64_t, double or int (bool). The entry returns 0 on success
 * and a non-zero value for an error it detected (for instance an unsupported
 * dtype); the harness records that value.
 *
 * This header is plain C so that OpenCL host launchers, CUDA and HIP sources can
 * include it unchanged. */
#ifndef KGB_KERNEL_H
#define KGB_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KGB_ABI_VERSION 1
#define KGB_MAX_RANK 8

/* Element types. The numeric values are part of the ABI. */
typedef enum kgb_dtype {
  KGB_BOOL = 0, /* 1 byte, 0 or 1 */
  KGB_I8 = 1,
  KGB_I32 = 2,
  KGB_I64 = 3,
  KGB_F16 = 4,  /* IEEE binary16, stored as uint16_t */
  KGB_BF16 = 5, /* bfloat16, stored as uint16_t (upper half of a float) */
  KGB_F32 = 6,
  KGB_F64 = 7,
  KGB_C64 = 8,  /* two floats: real, imaginary */
  KGB_C128 = 9  /* two doubles: real, imaginary */
} kgb_dtype;

/* A strided view. `data` points at element [0,...,0]; strides are in elements
 * (not bytes) and may be larger than the contiguous ones (padded rows,
 * transposed layouts, every-other-element views). rank 0 is a scalar tensor. */
typedef struct kgb_tensor {
  void* data;
  int32_t dtype; /* a kgb_dtype value */
  int32_t rank;
  int64_t sizes[KGB_MAX_RANK];
  int64_t strides[KGB_MAX_RANK];
} kgb_tensor;

/* The backend's queue: NULL on CPU platforms, a cudaStream_t on CUDA and HIP,
 * a kgb_cl_context* (see kgb_opencl.h) on OpenCL. Work must be issued on it. */
typedef void* kgb_stream;

static inline int64_t kgb_numel(const kgb_tensor* t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->rank; ++i) n *= t->sizes[i];
  return n;
}

static inline int kgb_is_contiguous(const kgb_tensor* t) {
  int64_t expected = 1;
  for (int32_t i = t->rank - 1; i >= 0; --i) {
    if (t->sizes[i] != 1 && t->strides[i] != expected) return 0;
    expected *= t->sizes[i];
  }
  return 1;
}

static inline int32_t kgb_dtype_size(int32_t dtype) {
  switch (dtype) {
    case KGB_BOOL: case KGB_I8: return 1;
    case KGB_F16: case KGB_BF16: return 2;
    case KGB_I32: case KGB_F32: return 4;
    case KGB_I64: case KGB_F64: case KGB_C64: return 8;
    case KGB_C128: return 16;
    default: return 0;
  }
}

/* Return codes a candidate may use; anything non-zero is a failure. */
#define KGB_OK 0
#define KGB_ERR_UNSUPPORTED 1
#define KGB_ERR_INVALID 2

#ifdef __cplusplus
}
#endif

#endif /* KGB_KERNEL_H */
