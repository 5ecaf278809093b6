// aten/div_ in OpenCL: self /= other (true, trunc or floor rounding), with PyTorch broadcasting and
// type promotion. The launcher computes ATen's result type and folds the views
// into the fewest dimensions (broadcast dims stride 0, size-1 dims dropped,
// dims contiguous for every tensor merged); a flat contiguous problem runs a
// kernel without index arithmetic, anything else one work-item per element
// with strided offsets. The program is built per dtype combination with the
// dtypes as compile-time constants (-DDA, -DDB, -DDO, -DDC), so the element
// conversions fold away; f16/bf16 are ushort data converted in the kernel.
#include <stdint.h>
#include <stdio.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
/* Defaults (f32 with f32 into f32) so that the source also compiles alone; the launcher sets them all. */
#ifndef DA
#define DA 6
#define DB 6
#define DO 6
#define DC 6
#define B_TENSOR 1
#define MODE 0
#define NEED_FP64 0
#endif
#if NEED_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
/* The computation type: double for f64, float for f32/f16/bf16, long for integers and bool. */
#if DC == 7
typedef double C;
#elif DC == 4 || DC == 5 || DC == 6
typedef float C;
#else
typedef long C;
#endif

/* Element i of a buffer of dtype dt (a compile-time constant) as C. An operand
   of another dtype whose common dtype is f16/bf16 (an integer, or an f32/f64
   zero-dim tensor) is rounded to it first. */
C load_elem(__global const uchar* p, long i, int dt) {
  C v;
  switch (dt) {
    case 6: v = (C)((__global const float*)p)[i]; break;
#if NEED_FP64
    case 7: v = (C)((__global const double*)p)[i]; break;
#endif
    case 4: v = (C)kgb_f16_to_float(((__global const ushort*)p)[i]); break;
    case 5: v = (C)kgb_bf16_to_float(((__global const ushort*)p)[i]); break;
    case 2: v = (C)((__global const int*)p)[i]; break;
    case 3: v = (C)((__global const long*)p)[i]; break;
    default: v = (C)(p[i] != 0); break;
  }
#if DC == 4
  if (dt != 4) v = (C)kgb_f16_to_float(kgb_float_to_f16((float)v));
#elif DC == 5
  if (dt != 5) v = (C)kgb_bf16_to_float(kgb_float_to_bf16((float)v));
#endif
  return v;
}

/* x / y correctly rounded: OpenCL C's float division may be off by 2.5 ulp
   unless the program is built with -cl-fp32-correctly-rounded-divide-sqrt
   (CORRECT_DIV); otherwise the fma residual x - q*y (exact) corrects q. */
C quotient(C x, C y) {
#if (DC == 4 || DC == 5 || DC == 6) && !defined(CORRECT_DIV)
  float q = x / y;
  if (isfinite(q) && q != 0.0f) q += fma(-q, y, x) / y;
  return q;
#else
  return x / y;
#endif
}
/* div: MODE 0 true division, 1 rounded toward zero, 2 toward -inf. */
typedef C R;
R op(C x, C y) {
#if MODE == 1 && (DC == 2 || DC == 3)
  return x / y;
#elif MODE == 1 && DC == 4
  return trunc(kgb_f16_to_float(kgb_float_to_f16(quotient(x, y)))); /* the quotient rounds to f16 first */
#elif MODE == 1 && DC == 5
  return trunc(kgb_bf16_to_float(kgb_float_to_bf16(quotient(x, y))));
#elif MODE == 1
  return trunc(quotient(x, y));
#elif MODE == 2
#if DC == 2 || DC == 3 || DC == 0
  const C q = x / y, r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? q - 1 : q;
#else
  if (y == (C)0) return x / y;
  C mod = fmod(x, y);
  C div = quotient(x - mod, y);
  if (mod != (C)0 && (y < (C)0) != (mod < (C)0)) div -= (C)1;
  if (div == (C)0) return copysign((C)0, x / y);
  C fl = floor(div);
  if (div - fl > (C)0.5) fl += (C)1;
  return fl;
#endif
#else
  return quotient(x, y);
#endif
}

/* Stores a result into element i of out (dtype DO): 16-bit floats round once. */
void store_elem(__global uchar* p, long i, R v) {
#if DO == 6
  ((__global float*)p)[i] = (float)v;
#elif DO == 7
  ((__global double*)p)[i] = (double)v;
#elif DO == 4
  ((__global ushort*)p)[i] = kgb_float_to_f16((float)v);
#elif DO == 5
  ((__global ushort*)p)[i] = kgb_float_to_bf16((float)v);
#elif DO == 2
  ((__global int*)p)[i] = (int)v;
#elif DO == 3
  ((__global long*)p)[i] = (long)v;
#else
  p[i] = (uchar)(v != 0);
#endif
}

/* b is read only when B_TENSOR is 1; otherwise the Scalar bs is used. */
__kernel void binary_flat(__global uchar* o, long o_off, __global const uchar* a, long a_off, __global const uchar* b,
                          long b_off, long n, C bs) {
  long i = get_global_id(0);
  if (i >= n) return;
  C x = load_elem(a, a_off + i, DA);
#if B_TENSOR
  C y = load_elem(b, b_off + i, DB);
#else
  C y = bs;
#endif
  store_elem(o, o_off + i, op(x, y));
}

typedef struct { long size[8]; long so[8]; long sa[8]; long sb[8]; } Geometry;

__kernel void binary_nd(__global uchar* o, long o_off, __global const uchar* a, long a_off, __global const uchar* b,
                        long b_off, Geometry g, int rank, long n, C bs) {
  long i = get_global_id(0);
  if (i >= n) return;
  long io = o_off, ia = a_off, ib = b_off, r = i;
  for (int d = rank - 1; d > 0; --d) {
    long q = r / g.size[d], k = r - q * g.size[d];
    r = q;
    io += k * g.so[d]; ia += k * g.sa[d]; ib += k * g.sb[d];
  }
  io += r * g.so[0]; ia += r * g.sa[0]; ib += r * g.sb[0];
  C x = load_elem(a, ia, DA);
#if B_TENSOR
  C y = load_elem(b, ib, DB);
#else
  C y = bs;
#endif
  store_elem(o, io, op(x, y));
}
)CLC";

// ---- dtypes and ATen's type promotion ------------------------------------------
bool is_float_dtype(int32_t t) { return t == KGB_F16 || t == KGB_BF16 || t == KGB_F32 || t == KGB_F64; }
bool supported_dtype(int32_t t) { return t == KGB_BOOL || t == KGB_I32 || t == KGB_I64 || is_float_dtype(t); }

// torch.promote_types over bool, i32, i64, f16, bf16, f32, f64.
int32_t promote(int32_t a, int32_t b) {
  if (a == b) return a;
  if (a == KGB_BOOL) return b;
  if (b == KGB_BOOL) return a;
  const bool fa = is_float_dtype(a), fb = is_float_dtype(b);
  if (fa != fb) return fa ? a : b;
  if (!fa) return KGB_I64;
  if (a == KGB_F64 || b == KGB_F64) return KGB_F64;
  return KGB_F32;
}

// torch.result_type: a dimensioned tensor beats a zero-dim tensor, which beats
// a Scalar, unless the lower one is of a higher category.
enum Level { kDimensioned = 0, kZeroDim = 1, kScalar = 2 };
struct Operand {
  const kgb_tensor* t = nullptr;  // nullptr: an ATen Scalar
  kgb_scalar s{};
  int32_t dtype = KGB_F32;        // a Scalar counts as bool, i64 or (default dtype) f32
  Level level = kDimensioned;
};
Operand tensor_operand(const kgb_tensor* t) {
  Operand o;
  o.t = t;
  o.dtype = t->dtype;
  o.level = t->rank == 0 ? kZeroDim : kDimensioned;
  return o;
}
Operand scalar_operand(kgb_scalar s) {
  Operand o;
  o.s = s;
  o.dtype = s.dtype == KGB_F64 ? KGB_F32 : (s.dtype == KGB_BOOL ? KGB_BOOL : KGB_I64);
  o.level = kScalar;
  return o;
}
double scalar_value(const Operand& o) { return o.s.dtype == KGB_F64 ? o.s.v.f : static_cast<double>(o.s.v.i); }

int32_t result_type(const Operand& a, const Operand& b) {
  if (a.level == b.level) return promote(a.dtype, b.dtype);
  const int32_t higher = a.level < b.level ? a.dtype : b.dtype, lower = a.level < b.level ? b.dtype : a.dtype;
  if (is_float_dtype(higher)) return higher;
  if (higher == KGB_BOOL || is_float_dtype(lower)) return promote(higher, lower);
  return higher;
}

// The dtype div computes in: float(common) for true division (mode 0), else the common dtype.
int32_t compute_dtype(int32_t common, int mode) {
  return mode == 0 && !is_float_dtype(common) ? KGB_F32 : common;
}

// OpenCL C's float division may be off by 2.5 ulp: where the device can
// divide correctly rounded (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT), build with
// that option; elsewhere the kernel's quotient() corrects the quotient.
const char* divide_options(kgb_stream stream) {
  cl_device_fp_config fp = 0;
  const bool exact = clGetDeviceInfo(kgb_cl_get_device(stream), CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr) ==
                         CL_SUCCESS &&
                     (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  return exact ? " -cl-fp32-correctly-rounded-divide-sqrt -DCORRECT_DIV=1" : "";
}
struct Geometry {
  cl_long size[8], so[8], sa[8], sb[8];
};

// Right-aligned broadcast of a and b (nullptr: a Scalar) onto out, compacted.
bool build_geometry(const kgb_tensor* out, const kgb_tensor* a, const kgb_tensor* b, Geometry& g, int& rank) {
  const int r = out->rank;
  if (a->rank > r || (b && b->rank > r)) return false;
  rank = 0;
  for (int d = 0; d < r; ++d) {
    const cl_long size = out->sizes[d], so = out->strides[d];
    cl_long sa = 0, sb = 0;
    const int da = d - (r - a->rank), db = b ? d - (r - b->rank) : -1;
    if (da >= 0) {
      if (a->sizes[da] != size && a->sizes[da] != 1) return false;
      sa = a->sizes[da] == 1 ? 0 : a->strides[da];
    }
    if (db >= 0) {
      if (b->sizes[db] != size && b->sizes[db] != 1) return false;
      sb = b->sizes[db] == 1 ? 0 : b->strides[db];
    }
    if (size == 1) continue;
    const int p = rank - 1;
    if (p >= 0 && g.so[p] == so * size && g.sa[p] == sa * size && g.sb[p] == sb * size) {
      g.size[p] *= size;
      g.so[p] = so;
      g.sa[p] = sa;
      g.sb[p] = sb;
      continue;
    }
    g.size[rank] = size;
    g.so[rank] = so;
    g.sa[rank] = sa;
    g.sb[rank] = sb;
    ++rank;
  }
  if (rank == 0) {
    g.size[0] = 1;
    g.so[0] = g.sa[0] = g.sb[0] = 0;
    rank = 1;
  }
  for (int d = rank; d < 8; ++d) g.size[d] = 1, g.so[d] = g.sa[d] = g.sb[d] = 0;
  return true;
}

int run(const Operand& a, const Operand& b, kgb_tensor* out, int mode, kgb_stream stream) {
  if (!supported_dtype(a.dtype) || !supported_dtype(b.dtype) || !supported_dtype(out->dtype)) return KGB_ERR_UNSUPPORTED;
  const int32_t common = compute_dtype(result_type(a, b), mode);
  if (common < 0) return KGB_ERR_UNSUPPORTED;
  const bool fp64 = common == KGB_F64 || a.dtype == KGB_F64 || b.dtype == KGB_F64 || out->dtype == KGB_F64;
  if (fp64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Geometry g{};
  int rank = 0;
  if (!build_geometry(out, a.t, b.t, g, rank)) return KGB_ERR_INVALID;
  const cl_long n = kgb_numel(out);
  if (n == 0) return KGB_OK;

  char options[256];
  snprintf(options, sizeof options, "-cl-std=CL1.2 -DDA=%d -DDB=%d -DDO=%d -DDC=%d -DB_TENSOR=%d -DMODE=%d -DNEED_FP64=%d%s",
           a.dtype, b.t ? b.dtype : 0, out->dtype, common, b.t ? 1 : 0, mode, fp64 ? 1 : 0, divide_options(stream));
  const bool flat = rank == 1 && g.so[0] == 1 && g.sa[0] == 1 && (!b.t || g.sb[0] == 1);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, flat ? "binary_flat" : "binary_nd", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, a.t);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, b.t ? b.t : a.t);  // a stand-in buffer for a Scalar
  cl_uint next = 6;
  if (!flat) {
    err |= clSetKernelArg(k, next++, sizeof g, &g);
    err |= clSetKernelArg(k, next++, sizeof rank, &rank);
  }
  err |= clSetKernelArg(k, next++, sizeof n, &n);
  const double bs = b.t ? 0.0 : scalar_value(b);
  if (common == KGB_F64) {
    const cl_double v = bs;
    err |= clSetKernelArg(k, next++, sizeof v, &v);
  } else if (is_float_dtype(common)) {
    const cl_float v = static_cast<cl_float>(bs);
    err |= clSetKernelArg(k, next++, sizeof v, &v);
  } else {
    const cl_long v = b.t ? 0 : b.s.v.i;
    err |= clSetKernelArg(k, next++, sizeof v, &v);
  }
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_div_(kgb_tensor* self, const kgb_tensor* other, kgb_stream stream) {
  return run(tensor_operand(self), tensor_operand(other), self, 0, stream);
}

extern "C" int kgb_aten_div__Scalar(kgb_tensor* self, kgb_scalar other, kgb_stream stream) {
  return run(tensor_operand(self), scalar_operand(other), self, 0, stream);
}

extern "C" int kgb_aten_div__Tensor_mode(kgb_tensor* self, const kgb_tensor* other, const int* rounding_mode, kgb_stream stream) {
  return run(tensor_operand(self), tensor_operand(other), self, rounding_mode ? *rounding_mode : 0, stream);
}

extern "C" int kgb_aten_div__Scalar_mode(kgb_tensor* self, kgb_scalar other, const int* rounding_mode, kgb_stream stream) {
  return run(tensor_operand(self), scalar_operand(other), self, rounding_mode ? *rounding_mode : 0, stream);
}

