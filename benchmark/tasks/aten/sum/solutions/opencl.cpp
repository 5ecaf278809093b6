// aten/sum in OpenCL: `sum` (every element) and `sum.dim_IntList` (a list of
// dimensions), with ATen's promotion (integers and bool into int64) and
// optional result dtype.
//
// Host: a complex tensor is seen as a real one with one more kept dimension
// (re, im: size 2, unit stride) and doubled strides. The dimensions of self
// are split into kept and reduced ones, size-1 dimensions dropped, each group
// ordered by stride (innermost last) and merged where memory allows. If the
// innermost kept dimension is more contiguous than every reduced one (a
// reduction over an outer dimension, e.g. 200x40999x3 over the middle, or the
// (re, im) pair), it becomes the work-group's lane dimension.
//
// Device: one work-group of 256 per (outer output, group of up to 32 lanes).
// Work-item t serves lane t % lanes and reduced elements t / lanes,
// t / lanes + k, ...: with the lane dimension contiguous and the reduced
// stride equal to the lane count, the group reads one contiguous stream; with
// no lane dimension the work-items stride along a row. The k partial sums of
// each lane meet in a tree in local memory (a fixed order); one rounding into
// the result dtype. Accumulators: double for f32/f64 inputs where the device
// has cl_khr_fp64 (float otherwise), float for f16/bf16, long for integers
// and bool. f64 data only where the device has cl_khr_fp64. An empty slice
// sums to 0.
#include <stdint.h>

#include <string>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr int kGroup = 256;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#if KGB_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define GROUP 256
// Input S (KGB_IN) and result D (KGB_OUT) as kgb_dtype numbers; accumulator A.
#if KGB_IN == 6
typedef float S;
#define LOAD(v) (v)
#elif KGB_IN == 7
typedef double S;
#define LOAD(v) (v)
#elif KGB_IN == 4
typedef ushort S;
#define LOAD(v) kgb_f16_to_float(v)
#elif KGB_IN == 5
typedef ushort S;
#define LOAD(v) kgb_bf16_to_float(v)
#elif KGB_IN == 2
typedef int S;
#define LOAD(v) ((long)(v))
#elif KGB_IN == 3
typedef long S;
#define LOAD(v) (v)
#elif KGB_IN == 10
typedef uchar S;
#define LOAD(v) ((long)(v))
#else
typedef uchar S; /* bool */
#define LOAD(v) ((long)((v) != 0))
#endif
#if KGB_IN == 2 || KGB_IN == 3 || KGB_IN == 10 || KGB_IN == 0
typedef long A;
#elif KGB_FP64 && (KGB_IN == 6 || KGB_IN == 7)
typedef double A;
#else
typedef float A;
#endif
#if KGB_OUT == 6
typedef float D;
#define STORE(v) ((float)(v))
#elif KGB_OUT == 7
typedef double D;
#define STORE(v) ((double)(v))
#elif KGB_OUT == 4
typedef ushort D;
#define STORE(v) kgb_float_to_f16((float)(v))
#elif KGB_OUT == 5
typedef ushort D;
#define STORE(v) kgb_float_to_bf16((float)(v))
#elif KGB_OUT == 3
typedef long D;
#define STORE(v) ((long)(v))
#else
typedef int D;
#define STORE(v) ((int)(v))
#endif

// Outer kept dims (size, self stride, out stride), reduced dims (size, self
// stride), the lane dim, and the launch shape; the host struct matches.
typedef struct {
  long ks[9], kx[9], ky[9], rs[8], rx[8];
  long lanes, lx, ly, len;
  int nk, nr, lane_block, k, groups, parts; /* parts: reals per element (2: complex) */
} Plan;

long reduced_offset(const Plan* p, long r) {
  if (p->nr <= 1) return p->nr ? r * p->rx[0] : 0;
  long off = 0;
  for (int d = p->nr - 1; d >= 0; --d) {
    long q = r / p->rs[d];
    off += (r - q * p->rs[d]) * p->rx[d];
    r = q;
  }
  return off;
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void sum(__global D* y, long y_off, __global const S* x, long x_off, Plan p) {
  __local A sm[GROUP];
  const int t = get_local_id(0);
  const long o = get_group_id(0) / p.groups, g = get_group_id(0) - o * p.groups;
  long xo = x_off * p.parts, yo = y_off * p.parts, rest = o;  /* offsets come in elements */
  for (int d = p.nk - 1; d >= 0; --d) {
    long q = rest / p.ks[d], i = rest - q * p.ks[d];
    rest = q;
    xo += i * p.kx[d];
    yo += i * p.ky[d];
  }
  const int lane = t % p.lane_block, r0 = t / p.lane_block;
  const long li = g * p.lane_block + lane;
  const int active = r0 < p.k && li < p.lanes;
  A acc = 0;
  if (active) {
    const long base = xo + li * p.lx;
    if (p.nr <= 1) {
      const long rx = p.nr ? p.rx[0] : 0;
      for (long r = r0; r < p.len; r += p.k) acc += LOAD(x[base + r * rx]);
    } else {
      for (long r = r0; r < p.len; r += p.k) acc += LOAD(x[base + reduced_offset(&p, r)]);
    }
  }
  sm[t] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = p.k / 2; s > 0; s >>= 1) {
    if (active && r0 < s) sm[t] += sm[t + s * p.lane_block];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (active && r0 == 0) y[yo + li * p.ly] = STORE(sm[t]);
}
)CLC";

struct Plan {
  cl_long ks[9] = {}, kx[9] = {}, ky[9] = {}, rs[8] = {}, rx[8] = {};
  cl_long lanes = 1, lx = 0, ly = 0, len = 1;
  cl_int nk = 0, nr = 0, lane_block = 1, k = 1, groups = 1, parts = 1;
};

int64_t mag(int64_t v) { return v < 0 ? -v : v; }

// Orders dims by decreasing |stride a| (innermost last) and merges neighbours.
void order_and_merge(cl_int& n, cl_long* s, cl_long* a, cl_long* b) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && mag(a[j - 1]) < mag(a[j]); --j) {
      cl_long t;
      t = s[j], s[j] = s[j - 1], s[j - 1] = t;
      t = a[j], a[j] = a[j - 1], a[j - 1] = t;
      if (b) t = b[j], b[j] = b[j - 1], b[j - 1] = t;
    }
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0 && a[m - 1] == a[i] * s[i] && (!b || b[m - 1] == b[i] * s[i])) {
      s[m - 1] *= s[i];
      a[m - 1] = a[i];
      if (b) b[m - 1] = b[i];
      continue;
    }
    s[m] = s[i], a[m] = a[i];
    if (b) b[m] = b[i];
    ++m;
  }
  n = m;
}

// Fills p; outer (kept outputs without the lane dim) goes to *outer.
// dims == nullptr: every dimension (also an empty list). complex: strides in
// reals, plus the (re, im) dimension.
int make_plan(const kgb_tensor* x, const kgb_int_list* dims, int keepdim, const kgb_tensor* y, bool complex, Plan& p,
              int64_t* outer) {
  const int rank = x->rank;
  bool reduced[KGB_MAX_RANK] = {false};
  const int64_t nominal = rank == 0 ? 1 : rank;
  const int64_t count = dims ? dims->count : 0;
  for (int64_t i = 0; i < count; ++i) {
    int64_t d = dims->values[i];
    if (d < -nominal || d >= nominal) return KGB_ERR_INVALID;
    if (rank == 0) continue;
    if (d < 0) d += rank;
    if (reduced[d]) return KGB_ERR_INVALID;
    reduced[d] = true;
  }
  if (count == 0)
    for (int d = 0; d < rank; ++d) reduced[d] = true;
  const int64_t scale = complex ? 2 : 1;
  int od = 0;
  *outer = 1;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = x->sizes[d];
    if (reduced[d]) {
      if (keepdim) {
        if (od >= y->rank || y->sizes[od] != 1) return KGB_ERR_INVALID;
        ++od;
      }
      p.len *= size;
      if (size != 1) p.rs[p.nr] = size, p.rx[p.nr] = x->strides[d] * scale, ++p.nr;
      continue;
    }
    if (od >= y->rank || y->sizes[od] != size) return KGB_ERR_INVALID;
    *outer *= size;
    if (size != 1) p.ks[p.nk] = size, p.kx[p.nk] = x->strides[d] * scale, p.ky[p.nk] = y->strides[od] * scale, ++p.nk;
    ++od;
  }
  if (od != y->rank) return KGB_ERR_INVALID;
  if (complex) p.ks[p.nk] = 2, p.kx[p.nk] = 1, p.ky[p.nk] = 1, ++p.nk, *outer *= 2;
  order_and_merge(p.nk, p.ks, p.kx, p.ky);
  order_and_merge(p.nr, p.rs, p.rx, nullptr);
  if (p.nk > 0 && (p.nr == 0 || mag(p.kx[p.nk - 1]) < mag(p.rx[p.nr - 1]))) {
    --p.nk;
    p.lanes = p.ks[p.nk];
    p.lx = p.kx[p.nk];
    p.ly = p.ky[p.nk];
    *outer /= p.lanes;
  }
  return KGB_OK;
}

int pow2_at_least(int64_t v) {
  int p = 1;
  while (p < v && p < kGroup) p <<= 1;
  return p;
}

int sum(const kgb_tensor* self, const kgb_int_list* dims, int keepdim, const int* dtype, kgb_tensor* out,
        kgb_stream stream) {
  const int32_t in = self->dtype, res = out->dtype;
  const bool integral = in == KGB_I32 || in == KGB_I64 || in == KGB_U8 || in == KGB_BOOL;
  if (dtype ? *dtype != res : res != (integral ? KGB_I64 : in)) return KGB_ERR_INVALID;
  const bool ok = (in == res && (in == KGB_F32 || in == KGB_F64 || in == KGB_F16 || in == KGB_BF16 || in == KGB_C64 ||
                                 in == KGB_I64 || in == KGB_I32)) ||
                  ((in == KGB_F16 || in == KGB_BF16) && res == KGB_F32) || (in == KGB_F32 && res == KGB_F64) ||
                  (integral && res == KGB_I64);
  if (!ok) return KGB_ERR_UNSUPPORTED;
  const bool fp64 = kgb_cl_has_fp64(stream) != 0;
  if (!fp64 && (in == KGB_F64 || res == KGB_F64)) return KGB_ERR_UNSUPPORTED;
  const bool complex = in == KGB_C64;
  Plan p;
  int64_t outer = 1;
  if (int s = make_plan(self, dims, keepdim, out, complex, p, &outer); s != KGB_OK) return s;
  if (outer * p.lanes == 0) return KGB_OK;
  p.lane_block = static_cast<cl_int>(p.lanes < 32 ? p.lanes : 32);
  const int kmax = kGroup / pow2_at_least(p.lane_block);
  p.k = pow2_at_least(p.len) < kmax ? pow2_at_least(p.len) : kmax;
  p.groups = static_cast<cl_int>((p.lanes + p.lane_block - 1) / p.lane_block);
  p.parts = complex ? 2 : 1;
  const int32_t in_real = complex ? KGB_F32 : in, res_real = complex ? KGB_F32 : res;
  const std::string options = "-cl-std=CL1.2 -DKGB_IN=" + std::to_string(in_real) +
                              " -DKGB_OUT=" + std::to_string(res_real) + " -DKGB_FP64=" + (fp64 ? "1" : "0");
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options.c_str(), "sum", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, self);
  err |= clSetKernelArg(k, 4, sizeof p, &p);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = kGroup;
  const size_t global = static_cast<size_t>(outer * p.groups) * kGroup;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_sum(const kgb_tensor* self, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  return sum(self, nullptr, 0, dtype, out, stream);
}

extern "C" int kgb_aten_sum_dim_IntList(const kgb_tensor* self, kgb_int_list dim, int keepdim, const int* dtype,
                                        kgb_tensor* out, kgb_stream stream) {
  return sum(self, &dim, keepdim, dtype, out, stream);
}
