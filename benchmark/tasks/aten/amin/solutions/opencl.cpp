// aten/amin in OpenCL: minimum over a list of dimensions, NaN propagating.
//
// Host: the dimensions of self are split into kept and reduced ones, size-1
// dimensions dropped, each group ordered by stride (innermost last) and
// merged where memory allows. If the innermost kept dimension is more
// contiguous than every reduced one (a reduction over an outer dimension,
// e.g. 200x40999x3 over the middle), it becomes the work-group's lane
// dimension.
//
// Device: one work-group of 256 per (outer output, group of up to 32 lanes).
// Work-item t serves lane t % lanes and reduced elements t / lanes,
// t / lanes + k, ...: with the lane dimension contiguous and the reduced
// stride equal to the lane count, the group reads one contiguous stream; with
// no lane dimension the work-items stride along a row. The k partial minima
// of each lane meet in a tree in local memory.
// Values compare in float (f32/f16/bf16), double or the integer type; a NaN
// is tracked as a flag, so it wins over everything. f64 only where the device
// has cl_khr_fp64.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr int kGroup = 256;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define GROUP 256
#if KGB_DT == 6
typedef float S; typedef float C;
#define LOAD(v) (v)
#define STORE(v, nan) ((nan) ? NAN : (v))
#define TOP INFINITY
#elif KGB_DT == 7
typedef double S; typedef double C;
#define LOAD(v) (v)
#define STORE(v, nan) ((nan) ? (double)NAN : (v))
#define TOP ((double)INFINITY)
#elif KGB_DT == 4
typedef ushort S; typedef float C;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v, nan) ((nan) ? (ushort)0x7e00 : kgb_float_to_f16(v))
#define TOP INFINITY
#elif KGB_DT == 5
typedef ushort S; typedef float C;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v, nan) ((nan) ? (ushort)0x7fc0 : kgb_float_to_bf16(v))
#define TOP INFINITY
#elif KGB_DT == 2
typedef int S; typedef int C;
#define LOAD(v) (v)
#define STORE(v, nan) (v)
#define TOP INT_MAX
#elif KGB_DT == 3
typedef long S; typedef long C;
#define LOAD(v) (v)
#define STORE(v, nan) (v)
#define TOP LONG_MAX
#endif

// Outer kept dims (size, self stride, out stride), reduced dims (size, self
// stride), the lane dim, and the launch shape; the host struct matches.
typedef struct {
  long ks[8], kx[8], ky[8], rs[8], rx[8];
  long lanes, lx, ly, len;
  int nk, nr, lane_block, k, groups;
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
void amin(__global S* y, long y_off, __global const S* x, long x_off, Plan p) {
  __local C sm[GROUP];
  __local int sn[GROUP];
  const int t = get_local_id(0);
  const long o = get_group_id(0) / p.groups, g = get_group_id(0) - o * p.groups;
  long xo = x_off, yo = y_off, rest = o;
  for (int d = p.nk - 1; d >= 0; --d) {
    long q = rest / p.ks[d], i = rest - q * p.ks[d];
    rest = q;
    xo += i * p.kx[d];
    yo += i * p.ky[d];
  }
  const int lane = t % p.lane_block, r0 = t / p.lane_block;
  const long li = g * p.lane_block + lane;
  const int active = r0 < p.k && li < p.lanes;
  C m = TOP;
  int nan = 0;
  if (active) {
    const long base = xo + li * p.lx;
    if (p.nr <= 1) {
      const long rx = p.nr ? p.rx[0] : 0;
      for (long r = r0; r < p.len; r += p.k) {
        C v = LOAD(x[base + r * rx]);
        nan |= v != v;
        m = v < m ? v : m;
      }
    } else {
      for (long r = r0; r < p.len; r += p.k) {
        C v = LOAD(x[base + reduced_offset(&p, r)]);
        nan |= v != v;
        m = v < m ? v : m;
      }
    }
  }
  sm[t] = m;
  sn[t] = nan;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = p.k / 2; s > 0; s >>= 1) {
    if (active && r0 < s) {
      const int u = t + s * p.lane_block;
      C v = sm[u];
      sm[t] = v < sm[t] ? v : sm[t];
      sn[t] |= sn[u];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (active && r0 == 0) y[yo + li * p.ly] = STORE(sm[t], sn[t]);
}
)CLC";

struct Plan {
  cl_long ks[8] = {}, kx[8] = {}, ky[8] = {}, rs[8] = {}, rx[8] = {};
  cl_long lanes = 1, lx = 0, ly = 0, len = 1;
  cl_int nk = 0, nr = 0, lane_block = 1, k = 1, groups = 1;
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
int make_plan(const kgb_tensor* x, kgb_int_list dim, int keepdim, const kgb_tensor* y, Plan& p, int64_t* outer) {
  const int rank = x->rank;
  bool reduced[KGB_MAX_RANK] = {false};
  const int64_t nominal = rank == 0 ? 1 : rank;
  for (int64_t i = 0; i < dim.count; ++i) {
    int64_t d = dim.values[i];
    if (d < -nominal || d >= nominal) return KGB_ERR_INVALID;
    if (rank == 0) continue;
    if (d < 0) d += rank;
    if (reduced[d]) return KGB_ERR_INVALID;
    reduced[d] = true;
  }
  if (dim.count == 0)
    for (int d = 0; d < rank; ++d) reduced[d] = true;
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
      if (size != 1) p.rs[p.nr] = size, p.rx[p.nr] = x->strides[d], ++p.nr;
      continue;
    }
    if (od >= y->rank || y->sizes[od] != size) return KGB_ERR_INVALID;
    *outer *= size;
    if (size != 1) p.ks[p.nk] = size, p.kx[p.nk] = x->strides[d], p.ky[p.nk] = y->strides[od], ++p.nk;
    ++od;
  }
  if (od != y->rank) return KGB_ERR_INVALID;
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

const char* build_options(int32_t dtype) {
  switch (dtype) {
    case KGB_I32: return "-cl-std=CL1.2 -DKGB_DT=2";
    case KGB_I64: return "-cl-std=CL1.2 -DKGB_DT=3";
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    case KGB_F64: return "-cl-std=CL1.2 -DKGB_DT=7";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_aten_amin(const kgb_tensor* self, kgb_int_list dim, int keepdim, kgb_tensor* out,
                             kgb_stream stream) {
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(self->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Plan p;
  int64_t outer = 1;
  if (int s = make_plan(self, dim, keepdim, out, p, &outer); s != KGB_OK) return s;
  if (outer * p.lanes == 0) return KGB_OK;
  if (p.len == 0) return KGB_ERR_INVALID;  // ATen refuses an empty reduction
  p.lane_block = static_cast<cl_int>(p.lanes < 32 ? p.lanes : 32);
  const int kmax = kGroup / pow2_at_least(p.lane_block);
  p.k = pow2_at_least(p.len) < kmax ? pow2_at_least(p.len) : kmax;
  p.groups = static_cast<cl_int>((p.lanes + p.lane_block - 1) / p.lane_block);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "amin", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, self);
  err |= clSetKernelArg(k, 4, sizeof p, &p);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = kGroup;
  const size_t global = static_cast<size_t>(outer * p.groups) * kGroup;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
