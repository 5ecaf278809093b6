// test/v2mix on the CPU, correct unless one of the WRONG_* macros is defined
// (each a mistake the v2 harness must catch).
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

static double at(const kgb_tensor* t, int64_t i) { return ((const double*)t->data)[i * t->strides[0]]; }

extern "C" int kgb_test_v2mix(const kgb_tensor_list* xs, const kgb_tensor* bias, kgb_scalar scale, const double* shift, int mode,
                              kgb_tensor* out, kgb_scalar* positives, kgb_tensor* work, kgb_stream stream) {
  (void)stream;
  const int64_t n = out->sizes[0];
  const double s = scale.dtype == KGB_F64 ? scale.v.f : (double)scale.v.i;
  double sign = mode == 0 ? 1.0 : -1.0;
#ifdef WRONG_IGNORES_MODE
  sign = 1.0;
#endif
  int64_t count = 0;
  double* w = (double*)work->data;
  for (int64_t i = 0; i < n; ++i) {
    double sum = 0;
    for (int64_t k = 0; k < xs->count; ++k) {
#ifdef WRONG_CONTIGUOUS_ITEMS
      // Assumes the items lie back to back after the first one.
      sum += ((const double*)xs->items[0]->data)[k * n + i];
#else
      sum += at(xs->items[k], i);
#endif
    }
    double b = 0;
    if (bias) {
#ifdef WRONG_ABS_STRIDE
      const int64_t step = bias->strides[0] < 0 ? -bias->strides[0] : bias->strides[0];
      b = ((const double*)bias->data)[i * step];
#else
      b = at(bias, i);
#endif
    }
    w[i * work->strides[0]] = b;
    const double v = s * sum + sign * b + (shift ? *shift : 0.0);
    ((double*)out->data)[i * out->strides[0]] = v;
    count += v > 0;
#ifndef WRONG_DIRTY_SCRATCH
    w[i * work->strides[0]] = 0;
#endif
  }
#ifdef WRONG_WRITES_LIST_GAP
  if (xs->count > 0 && n > 0) ((double*)xs->items[0]->data)[-1] = 0;
#endif
#ifdef WRONG_SCALAR_DTYPE
  positives->dtype = KGB_F64;
  positives->v.f = (double)count;
#else
  positives->dtype = KGB_I64;
  positives->v.i = count;
#endif
  return 0;
}

#ifndef WRONG_NO_OVERLOAD
extern "C" int kgb_test_v2mix_Scalar(const kgb_tensor* x, kgb_scalar other, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const double o = other.dtype == KGB_F64 ? other.v.f : (double)other.v.i;
  for (int64_t i = 0; i < out->sizes[0]; ++i) ((double*)out->data)[i * out->strides[0]] = at(x, i) * o;
  return 0;
}
#endif
