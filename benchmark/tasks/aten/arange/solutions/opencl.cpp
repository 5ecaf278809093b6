// aten/arange in OpenCL: out[i] = start + step * (acc)i with acc = float for
// f16/bf16/f32, double for f64 and long for the integer dtypes (ATen's CUDA
// rule), rounded into the element type; the program is built once per dtype
// (-DKGB_DT=<kgb_dtype>). Nothing is read: one work-item per element, in
// work-groups of 256 (CPU devices such as PoCL run a work-group per thread
// and vectorise across its items, so large groups cut the scheduling; GPUs
// coalesce the consecutive stores), with a unit-stride kernel that needs no
// stride multiply.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double S; typedef double4 S4; typedef double ACC;
#define STORE(v) (v)
#elif KGB_DT == 6
typedef float S; typedef float4 S4; typedef float ACC;
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef ushort4 S4; typedef float ACC;
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_DT == 5
typedef ushort S; typedef ushort4 S4; typedef float ACC;
#define STORE(v) kgb_float_to_bf16(v)
#elif KGB_DT == 3
typedef long S; typedef long4 S4; typedef long ACC;
#define STORE(v) (v)
#elif KGB_DT == 2
typedef int S; typedef int4 S4; typedef long ACC;
#define STORE(v) ((int)(v))
#elif KGB_DT == 11
typedef short S; typedef short4 S4; typedef long ACC;
#define STORE(v) ((short)(v))
#elif KGB_DT == 1
typedef char S; typedef char4 S4; typedef long ACC;
#define STORE(v) ((char)(v))
#else
typedef uchar S; typedef uchar4 S4; typedef long ACC;
#define STORE(v) ((uchar)(v))
#endif
#define VALUE(i) STORE(start + step * (ACC)(i))

__kernel void arange_contiguous(__global S* p, long p_off, long n, ACC start, ACC step) {
  const long i = get_global_id(0);
  if (i < n) p[p_off + i] = VALUE(i);
}

__kernel void arange_strided(__global S* p, long p_off, long n, long stride, ACC start, ACC step) {
  const long i = get_global_id(0);
  if (i < n) p[p_off + i * stride] = VALUE(i);
}
)CLC";

const char* options_for(int32_t dtype) {
  switch (dtype) {
    case KGB_U8: return "-cl-std=CL1.2 -DKGB_DT=10";
    case KGB_I8: return "-cl-std=CL1.2 -DKGB_DT=1";
    case KGB_I16: return "-cl-std=CL1.2 -DKGB_DT=11";
    case KGB_I32: return "-cl-std=CL1.2 -DKGB_DT=2";
    case KGB_I64: return "-cl-std=CL1.2 -DKGB_DT=3";
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    case KGB_F64: return "-cl-std=CL1.2 -DKGB_DT=7";
    default: return nullptr;
  }
}

double as_double(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }
int64_t as_int(const kgb_scalar& s) { return s.dtype == KGB_F64 ? static_cast<int64_t>(s.v.f) : s.v.i; }

int arange(const kgb_scalar& start, const kgb_scalar& step, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  if (out->rank != 1 || (dtype && *dtype != out->dtype)) return KGB_ERR_INVALID;
  const char* options = options_for(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const cl_long n = out->sizes[0], stride = out->strides[0];
  if (n == 0) return KGB_OK;
  const bool contiguous = stride == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, contiguous ? "arange_contiguous" : "arange_strided", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  cl_uint next = 2;
  err |= clSetKernelArg(k, next++, sizeof n, &n);
  if (!contiguous) err |= clSetKernelArg(k, next++, sizeof stride, &stride);
  switch (out->dtype) {
    case KGB_F32: case KGB_F16: case KGB_BF16: {
      const cl_float a = static_cast<cl_float>(as_double(start)), d = static_cast<cl_float>(as_double(step));
      err |= clSetKernelArg(k, next, sizeof a, &a);
      err |= clSetKernelArg(k, next + 1, sizeof d, &d);
      break;
    }
    case KGB_F64: {
      const cl_double a = as_double(start), d = as_double(step);
      err |= clSetKernelArg(k, next, sizeof a, &a);
      err |= clSetKernelArg(k, next + 1, sizeof d, &d);
      break;
    }
    default: {
      const cl_long a = as_int(start), d = as_int(step);
      err |= clSetKernelArg(k, next, sizeof a, &a);
      err |= clSetKernelArg(k, next + 1, sizeof d, &d);
    }
  }
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  // Groups of up to 256 items: fewer work-groups to schedule.
  size_t local = kgb_cl_max_work_group_size(stream, k);
  if (local > 256) local = 256;
  if (local == 0) local = 64;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

kgb_scalar int_scalar(int64_t v) {
  kgb_scalar s;
  s.dtype = KGB_I64;
  s.reserved = 0;
  s.v.i = v;
  return s;
}

}  // namespace

extern "C" int kgb_aten_arange(kgb_scalar end, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  (void)end;
  return arange(int_scalar(0), int_scalar(1), dtype, out, stream);
}

extern "C" int kgb_aten_arange_start(kgb_scalar start, kgb_scalar end, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  (void)end;
  return arange(start, int_scalar(1), dtype, out, stream);
}

extern "C" int kgb_aten_arange_start_step(kgb_scalar start, kgb_scalar end, kgb_scalar step, const int* dtype, kgb_tensor* out,
                                          kgb_stream stream) {
  (void)end;
  return arange(start, step, dtype, out, stream);
}
