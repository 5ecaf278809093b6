// aten/zeros_like in OpenCL. A tensor of zeros with self's shape and layout:
// zero is all-zero bytes in every dtype (self's values are never read). The
// view is folded on the host into the fewest dims (size-1 dims dropped, dims
// by falling stride, adjacent dims fused when they tile):
//  - one contiguous run: each work-item writes 16 zero bytes with one vstoreN
//    (uchar16, ushort8, uint4, ulong2), the last one the ragged end (a
//    kernel, not clEnqueueFillBuffer: CPU runtimes such as PoCL fill buffers
//    on one thread, several times slower);
//  - anything else: one work-item per element, offsets from the linear index.
// The program is built per element width (-DKGB_W=1|2|4|8|16), groups of up
// to 256 items.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#if KGB_W == 1
typedef uchar W; typedef uchar16 V;
#define PER 16
#define VSTORE vstore16
#elif KGB_W == 2
typedef ushort W; typedef ushort8 V;
#define PER 8
#define VSTORE vstore8
#elif KGB_W == 4
typedef uint W; typedef uint4 V;
#define PER 4
#define VSTORE vstore4
#elif KGB_W == 8
typedef ulong W; typedef ulong2 V;
#define PER 2
#define VSTORE vstore2
#else
typedef ulong2 W;
#define PER 1
#endif
typedef struct { long size[8]; long stride[8]; } Geometry;

void contiguous(__global W* p, long n) {
  const W v = (W)(0);
  const long first = get_global_id(0) * PER;
#if PER > 1
  if (first + PER <= n) {
    VSTORE((V)(v), 0, p + first);
    return;
  }
#endif
  for (long i = first; i < n; ++i) p[i] = v;
}

void strided(__global W* p, const Geometry* g, int rank, long n) {
  const W v = (W)(0);
  const long i = get_global_id(0);
  if (i >= n) return;
  long offset = 0, rest = i;
  for (int d = rank - 1; d > 0; --d) {
    const long q = rest / g->size[d];
    offset += (rest - q * g->size[d]) * g->stride[d];
    rest = q;
  }
  p[offset + rest * g->stride[0]] = v;
}

__kernel void zero_contiguous(__global W* p, long p_off, long n) { contiguous(p + p_off, n); }
__kernel void zero_strided(__global W* p, long p_off, Geometry g, int rank, long n) { strided(p + p_off, &g, rank, n); }
)CLC";

struct Geometry {
  cl_long size[8];
  cl_long stride[8];
};

int fold(const kgb_tensor* t, Geometry& g) {
  cl_long size[8], stride[8];
  int raw = 0;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    size[raw] = t->sizes[d];
    stride[raw] = t->strides[d];
    ++raw;
  }
  for (int i = 1; i < raw; ++i)
    for (int j = i; j > 0 && stride[j - 1] < stride[j]; --j) {
      cl_long s = size[j]; size[j] = size[j - 1]; size[j - 1] = s;
      s = stride[j]; stride[j] = stride[j - 1]; stride[j - 1] = s;
    }
  int rank = 0;
  for (int d = 0; d < raw; ++d) {
    if (rank > 0 && g.stride[rank - 1] == stride[d] * size[d]) {
      g.size[rank - 1] *= size[d];
      g.stride[rank - 1] = stride[d];
      continue;
    }
    g.size[rank] = size[d];
    g.stride[rank] = stride[d];
    ++rank;
  }
  if (rank == 0) {
    g.size[0] = 1;
    g.stride[0] = 1;
    rank = 1;
  }
  for (int d = rank; d < 8; ++d) g.size[d] = 1, g.stride[d] = 0;
  return rank;
}

const char* options_for(int32_t elem) {
  switch (elem) {
    case 1: return "-cl-std=CL1.2 -DKGB_W=1";
    case 2: return "-cl-std=CL1.2 -DKGB_W=2";
    case 4: return "-cl-std=CL1.2 -DKGB_W=4";
    case 8: return "-cl-std=CL1.2 -DKGB_W=8";
    case 16: return "-cl-std=CL1.2 -DKGB_W=16";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_aten_zeros_like(const kgb_tensor* self, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  // out already has self's shape, the layout memory_format=preserve gives and the dtype (given, or self's).
  if (self->rank != out->rank || (dtype ? *dtype != out->dtype : self->dtype != out->dtype)) return KGB_ERR_INVALID;
  const int32_t elem = kgb_dtype_size(out->dtype);
  const char* options = options_for(elem);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const cl_long n = kgb_numel(out);
  if (n == 0) return KGB_OK;
  Geometry g;
  const cl_int rank = fold(out, g);
  const bool contiguous = rank == 1 && g.stride[0] == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, contiguous ? "zero_contiguous" : "zero_strided", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  cl_uint next = 2;
  if (!contiguous) {
    err |= clSetKernelArg(k, next++, sizeof g, &g);
    err |= clSetKernelArg(k, next++, sizeof rank, &rank);
  }
  err |= clSetKernelArg(k, next, sizeof n, &n);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_long per = 16 / elem;
  const cl_long items = contiguous ? (n + per - 1) / per : n;
  // Groups of up to 256 items: fewer work-groups to schedule.
  size_t local = kgb_cl_max_work_group_size(stream, k);
  if (local > 256) local = 256;
  if (local == 0) local = 64;
  const size_t global = (static_cast<size_t>(items) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
