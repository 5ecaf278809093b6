/* kgb_kernel.h: the kernel ABI shared by the harness and every candidate.
 *
 * A candidate implements one entry point per task (and one per overload),
 * declared from the task spec:
 *     extern "C" int kgb_<source>_<name>[_<overload>](<params>, kgb_stream stream);
 * One C type per parameter kind: tensors are `const kgb_tensor*` (inputs; NULL
 * for an optional tensor that is None) or `kgb_tensor*` (outputs pre-allocated
 * by the harness, in-place tensors, view outputs the entry describes, scratch);
 * tensor lists `const kgb_tensor_list*` / `kgb_tensor_list*`; int64_t, double,
 * int (bool and enums), kgb_complex, kgb_scalar (ATen Scalar), kgb_int_list;
 * optional scalars as `const int64_t*`, `const double*`, `const kgb_scalar*`,
 * `const int*` (NULL = None); a host scalar result as `kgb_scalar*`. The entry
 * returns 0 on success and a non-zero value for an error it detected (for
 * instance an unsupported dtype); the harness records that value.
 *
 * This header is plain C so that OpenCL host launchers, CUDA and HIP sources can
 * include it unchanged. */
#ifndef KGB_KERNEL_H
#define KGB_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KGB_ABI_VERSION 2
#define KGB_MAX_RANK 8

/* Element types. The numeric values are part of the ABI (0-9 unchanged since v1). */
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
  KGB_C128 = 9, /* two doubles: real, imaginary */
  KGB_U8 = 10,       /* uint8_t: ATen uint8; byte caches, packed GGUF blobs */
  KGB_I16 = 11,      /* int16_t: ATen int16; Marlin 2:4 sparsity metadata */
  KGB_F8E4M3FN = 12, /* OCP E4M3 "fn", stored as uint8_t: bias 7, no Inf, NaN only S.1111.111, max 448 */
  KGB_F8E5M2 = 13    /* OCP E5M2, stored as uint8_t: bias 15, IEEE Inf and NaN, max 57344 */
} kgb_dtype;

#define KGB_TENSOR_CONJ 1u /* logical value = conj(stored value): ATen's conjugate bit */
#define KGB_TENSOR_NEG 2u  /* logical value = -(stored value): ATen's negative bit */

/* A strided view. `data` points at logical element [0,...,0]; strides are in
 * elements (not bytes), may be larger than the contiguous ones (padded rows,
 * transposed layouts, every-other-element views), zero (broadcast) or
 * negative (storage then extends below `data`). rank 0 is a scalar tensor. */
typedef struct kgb_tensor {
  void* data;                    /* logical element [0, ..., 0] */
  int32_t dtype;                 /* a kgb_dtype value */
  int32_t rank;
  int64_t sizes[KGB_MAX_RANK];
  int64_t strides[KGB_MAX_RANK];
  int64_t storage_offset;        /* elements from the start of the allocation to data */
  uint32_t flags;                /* KGB_TENSOR_CONJ, KGB_TENSOR_NEG; 0 on outputs */
  uint32_t reserved;             /* 0 */
} kgb_tensor;

/* Tensor[], Tensor?[], list outputs and cuBLAS-style pointer arrays. All items
 * have the list's dtype; input items are read-only although `items` is not
 * const. Items are never laid out back to back: each lives in its own place of
 * one allocation, in no particular order. */
typedef struct kgb_tensor_list {
  int64_t count;
  kgb_tensor* const* items;      /* host array of count descriptors; a NULL item is None */
  void* const* device_data;      /* pointer_array lists: items[i]->data, in device memory on
                                    CUDA/HIP, host memory on CPU; NULL otherwise and on OpenCL */
} kgb_tensor_list;

/* int[] and SymInt[]: dims, sizes, strides, padding, split sizes. */
typedef struct kgb_int_list {
  int64_t count;
  const int64_t* values;         /* host memory, valid for the duration of the call */
} kgb_int_list;

typedef struct kgb_complex {
  double re, im;
} kgb_complex;

/* An ATen Scalar argument, and the result of item(). */
typedef struct kgb_scalar {
  int32_t dtype;                 /* KGB_BOOL, KGB_I64: v.i; KGB_F64: v.f; KGB_C128: v.c */
  int32_t reserved;
  union {
    int64_t i;
    double f;
    kgb_complex c;
  } v;
} kgb_scalar;

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
    case KGB_BOOL: case KGB_I8: case KGB_U8: case KGB_F8E4M3FN: case KGB_F8E5M2: return 1;
    case KGB_I16: case KGB_F16: case KGB_BF16: return 2;
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
