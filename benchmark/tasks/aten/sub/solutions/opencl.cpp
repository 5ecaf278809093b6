// aten/sub in OpenCL: out = self - alpha * other.
// Self, other and out may have different dtypes (out has the promoted one); every input is
// converted to the compute type on load.
//
// The host right-aligns the tensors into one index space (stride 0 on
// broadcast dimensions), drops size-1 dimensions and merges dimensions that
// are contiguous in every tensor. A problem that folds to one dimension with
// unit (or, for an input, zero) strides runs a flat kernel without index
// arithmetic, one folded to two dimensions a 2-D range without divisions;
// anything else runs the general kernel. One work-item per element. The program is built once per dtype combination
// (-DKGB_DO/-DKGB_DA/-DKGB_DB = kgb_dtype values): loads convert to the compute type
// (float for f16/bf16/f32 results, double for f64, long for integer
// results), stores round once; f16/bf16 are ushort data.
#include <stdint.h>
#include <stdio.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DO  /* defaults for an offline syntax check; the launcher always sets them */
#define KGB_DO 6
#define KGB_DA 6
#define KGB_DB 6
#define KGB_BSCALAR 0
#endif
#if KGB_DO == 7 || KGB_DA == 7 || KGB_DB == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// Storage type of each operand: TO (out), TA (self), TB (other).
#if KGB_DO == 2
typedef int TO;
#elif KGB_DO == 3
typedef long TO;
#elif KGB_DO == 4
typedef ushort TO;
#elif KGB_DO == 5
typedef ushort TO;
#elif KGB_DO == 6
typedef float TO;
#elif KGB_DO == 7
typedef double TO;
#endif
#if KGB_DA == 2
typedef int TA;
#elif KGB_DA == 3
typedef long TA;
#elif KGB_DA == 4
typedef ushort TA;
#elif KGB_DA == 5
typedef ushort TA;
#elif KGB_DA == 6
typedef float TA;
#elif KGB_DA == 7
typedef double TA;
#endif
#if KGB_DB >= 0
#if KGB_DB == 2
typedef int TB;
#elif KGB_DB == 3
typedef long TB;
#elif KGB_DB == 4
typedef ushort TB;
#elif KGB_DB == 5
typedef ushort TB;
#elif KGB_DB == 6
typedef float TB;
#elif KGB_DB == 7
typedef double TB;
#endif
#endif

// Compute type C, chosen by out's dtype.
#if KGB_DO == 4 || KGB_DO == 5 || KGB_DO == 6
typedef float C;
#elif KGB_DO == 7
typedef double C;
#else
typedef long C;
#endif

// Conversions: exact loads into C, one rounding into out's dtype.
#if KGB_DA == 4
#define LOAD_A(v) ((C)kgb_f16_to_float(v))
#elif KGB_DA == 5
#define LOAD_A(v) ((C)kgb_bf16_to_float(v))
#elif KGB_DA == 0
#define LOAD_A(v) ((C)((v) != 0))
#else
#define LOAD_A(v) ((C)(v))
#endif
#if KGB_BSCALAR
#define B_ARGS C b_value
#define B_AT(i) (b_value)
#else
#if KGB_DB == 4
#define LOAD_B(v) ((C)kgb_f16_to_float(v))
#elif KGB_DB == 5
#define LOAD_B(v) ((C)kgb_bf16_to_float(v))
#elif KGB_DB == 0
#define LOAD_B(v) ((C)((v) != 0))
#else
#define LOAD_B(v) ((C)(v))
#endif
#define B_ARGS __global const TB* b, long b_off
#define B_AT(i) LOAD_B(b[i])
#endif
#if KGB_DO == 4
#define STORE_O(v) kgb_float_to_f16(v)
#elif KGB_DO == 5
#define STORE_O(v) kgb_float_to_bf16(v)
#elif KGB_DO == 0
#define STORE_O(v) ((uchar)((v) != 0))
#else
#define STORE_O(v) ((TO)(v))
#endif

#if KGB_DO == 4 || KGB_DO == 5 || KGB_DO == 6 || KGB_DO == 7
C op(C a, C b, C alpha) { return a - alpha * b; }
#else
C op(C a, C b, C alpha) { return (long)((ulong)(a) - (ulong)(alpha) * (ulong)(b)); }
#endif

typedef struct { long size[8]; long so[8]; long sa[8]; long sb[8]; } Geometry;

__kernel void pw_flat(__global TO* o, long o_off, __global const TA* a, long a_off, long sa,
                      B_ARGS, long sb,
                      long n, C alpha) {
  long i = get_global_id(0);
  if (i >= n) return;
  o[o_off + i] = STORE_O(op(LOAD_A(a[a_off + i * sa]), B_AT(b_off + i * sb), alpha));
}

// A problem folded to two dimensions: a 2-D range, no divisions.
__kernel void pw_rows(__global TO* o, long o_off, __global const TA* a, long a_off,
                      B_ARGS,
                      Geometry g, C alpha) {
  long c = get_global_id(0), r = get_global_id(1);
  if (c >= g.size[1] || r >= g.size[0]) return;
  long io = o_off + r * g.so[0] + c * g.so[1];
  long ia = a_off + r * g.sa[0] + c * g.sa[1];
  long ib = r * g.sb[0] + c * g.sb[1];
  o[io] = STORE_O(op(LOAD_A(a[ia]), B_AT(b_off + ib), alpha));
}

__kernel void pw_nd(__global TO* o, long o_off, __global const TA* a, long a_off,
                    B_ARGS,
                    Geometry g, int rank, long n, C alpha) {
  long i = get_global_id(0);
  if (i >= n) return;
  long io = o_off, ia = a_off, ib = 0, r = i;
  for (int d = rank - 1; d > 0; --d) {
    long q = r / g.size[d], k = r - q * g.size[d];
    r = q;
    io += k * g.so[d]; ia += k * g.sa[d]; ib += k * g.sb[d];
  }
  io += r * g.so[0]; ia += r * g.sa[0]; ib += r * g.sb[0];
  o[io] = STORE_O(op(LOAD_A(a[ia]), B_AT(b_off + ib), alpha));
}
)CLC";

constexpr int kOperands = 3;  // out, self, other

struct Geometry {
  cl_long size[8], so[8], sa[8], sb[8];
};

// Right-aligned broadcast of the inputs onto out, compacted; false if a shape does not fit.
bool build_geometry(const kgb_tensor* const* t, Geometry& g, int& rank) {
  const kgb_tensor* out = t[0];
  const int r = out->rank;
  cl_long size[8], st[3][8] = {};
  for (int d = 0; d < r; ++d) {
    size[d] = out->sizes[d];
    st[0][d] = out->strides[d];
    for (int k = 1; k < kOperands; ++k) {
      if (!t[k]) continue;  // a Scalar other: stride 0 everywhere
      const int dk = d - (r - t[k]->rank);
      if (dk < 0) continue;
      if (t[k]->sizes[dk] != size[d] && t[k]->sizes[dk] != 1) return false;
      st[k][d] = t[k]->sizes[dk] == 1 ? 0 : t[k]->strides[dk];
    }
  }
  cl_long* gs[3] = {g.so, g.sa, g.sb};
  rank = 0;
  for (int d = 0; d < r; ++d) {
    if (size[d] == 1) continue;
    if (rank > 0) {
      const int p = rank - 1;
      bool merge = true;
      for (int k = 0; k < 3; ++k) merge = merge && gs[k][p] == st[k][d] * size[d];
      if (merge) {
        g.size[p] *= size[d];
        for (int k = 0; k < 3; ++k) gs[k][p] = st[k][d];
        continue;
      }
    }
    g.size[rank] = size[d];
    for (int k = 0; k < 3; ++k) gs[k][rank] = st[k][d];
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

bool supported(int32_t dtype) {
  switch (dtype) {
    case KGB_I32:
    case KGB_I64:
    case KGB_F16:
    case KGB_BF16:
    case KGB_F32:
    case KGB_F64:
      return true;
    default:
      return false;
  }
}

// Kernel arguments in order; a tensor takes two (buffer, element offset).
struct Args {
  kgb_stream stream;
  cl_kernel kernel;
  cl_uint next = 0;
  cl_int error = CL_SUCCESS;
  template <typename T>
  Args& value(const T& v) {
    if (error == CL_SUCCESS) error = clSetKernelArg(kernel, next, sizeof v, &v);
    ++next;
    return *this;
  }
  Args& tensor(const kgb_tensor* t) {
    if (error == CL_SUCCESS) error = kgb_cl_set_tensor_arg(stream, kernel, next, t);
    next += 2;
    return *this;
  }
  // A value of the compute type of out's dtype (float, double, long).
  Args& compute_value(int32_t out_dtype, kgb_scalar s) {
    const double f = s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i);
    const int64_t i = s.dtype == KGB_F64 ? static_cast<int64_t>(s.v.f) : s.v.i;
    switch (out_dtype) {
      case KGB_F16: case KGB_BF16: case KGB_F32: return value(static_cast<cl_float>(f));
      case KGB_F64: return value(static_cast<cl_double>(f));
      default: return value(static_cast<cl_long>(i));
    }
  }
};

// t = {out, self, other}; other_scalar replaces t[2] when it is a Scalar.
int launch(const kgb_tensor* const* t, const kgb_scalar* other_scalar, kgb_scalar alpha, kgb_stream stream) {
  for (int k = 0; k < kOperands; ++k)
    if (t[k] && !supported(t[k]->dtype)) return KGB_ERR_UNSUPPORTED;
  bool f64 = false;
  for (int k = 0; k < kOperands; ++k) f64 = f64 || (t[k] && t[k]->dtype == KGB_F64);
  if (f64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Geometry g{};
  int rank = 0;
  if (!build_geometry(t, g, rank)) return KGB_ERR_INVALID;
  const cl_long n = kgb_numel(t[0]);
  if (n == 0) return KGB_OK;
  const bool flat = rank == 1 && g.so[0] == 1 && (g.sa[0] == 0 || g.sa[0] == 1) && (g.sb[0] == 0 || g.sb[0] == 1);
  char options[160];
  snprintf(options, sizeof options, "-cl-std=CL1.2 -DKGB_DO=%d -DKGB_DA=%d -DKGB_DB=%d -DKGB_BSCALAR=%d", t[0]->dtype,
           t[1]->dtype, other_scalar ? -1 : t[2]->dtype, other_scalar ? 1 : 0);
  const char* name = flat ? "pw_flat" : rank == 2 ? "pw_rows" : "pw_nd";
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, name, &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.tensor(t[0]).tensor(t[1]);
  if (flat) args.value(g.sa[0]);
  if (other_scalar) args.compute_value(t[0]->dtype, *other_scalar);
  else args.tensor(t[2]);
  if (flat) args.value(g.sb[0]);
  if (!flat) args.value(g);
  if (!flat && rank != 2) args.value(rank);
  if (rank != 2 || flat) args.value(n);
  args.compute_value(t[0]->dtype, alpha);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  if (!flat && rank == 2) {
    const size_t local[2] = {64, 4};
    const size_t global[2] = {(static_cast<size_t>(g.size[1]) + 63) / 64 * 64, (static_cast<size_t>(g.size[0]) + 3) / 4 * 4};
    return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_sub(const kgb_tensor* self, const kgb_tensor* other, kgb_scalar alpha, kgb_tensor* out, kgb_stream stream) {
  const kgb_tensor* t[kOperands] = {out, self, other};
  return launch(t, nullptr, alpha, stream);
}

extern "C" int kgb_aten_sub_Scalar(const kgb_tensor* self, kgb_scalar other, kgb_scalar alpha, kgb_tensor* out, kgb_stream stream) {
  const kgb_tensor* t[kOperands] = {out, self, nullptr};
  return launch(t, &other, alpha, stream);
}
