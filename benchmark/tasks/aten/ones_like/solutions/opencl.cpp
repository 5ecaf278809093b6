// aten/ones_like in OpenCL (program built per element width, -DKGB_W). A
// tensor of ones with self's shape and layout: out holds the bytes of 1 in
// its dtype everywhere (self's values are never read), and the kernel only
// knows element widths (1, 2, 4, 8, 16 bytes).
// The view is folded on the host into the fewest dims (size-1 dims dropped,
// dims by falling stride, adjacent dims fused when they tile):
//  - one contiguous run (any dense out): each work-item writes 16 bytes with
//    one vstoreN (uchar16, ushort8, uint4, ulong2), the last one the ragged
//    end;
//  - anything else: one work-item per element, offsets from the linear index.
#include <stdint.h>
#include <string.h>

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

void contiguous(__global W* p, long n, W v) {
  const long first = get_global_id(0) * PER;
#if PER > 1
  if (first + PER <= n) {
    VSTORE((V)(v), 0, p + first);
    return;
  }
#endif
  for (long i = first; i < n; ++i) p[i] = v;
}

void strided(__global W* p, const Geometry* g, int rank, long n, W v) {
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

__kernel void fill_contiguous(__global W* p, long p_off, long n, W v) { contiguous(p + p_off, n, v); }
__kernel void fill_strided(__global W* p, long p_off, Geometry g, int rank, long n, W v) {
  strided(p + p_off, &g, rank, n, v);
}
)CLC";

struct Geometry {
  cl_long size[8];
  cl_long stride[8];
};

// The element bytes of 1 in `dtype`: true, 1, 1.0 (f16 0x3C00, bf16 0x3F80),
// (1, 0) for complex.
bool one_bytes(int32_t dtype, unsigned char bytes[16]) {
  memset(bytes, 0, 16);
  switch (dtype) {
    case KGB_BOOL: case KGB_U8: case KGB_I8: bytes[0] = 1; return true;
    case KGB_I16: { const int16_t x = 1; memcpy(bytes, &x, 2); return true; }
    case KGB_I32: { const int32_t x = 1; memcpy(bytes, &x, 4); return true; }
    case KGB_I64: { const int64_t x = 1; memcpy(bytes, &x, 8); return true; }
    case KGB_F16: { const uint16_t h = 0x3C00; memcpy(bytes, &h, 2); return true; }
    case KGB_BF16: { const uint16_t h = 0x3F80; memcpy(bytes, &h, 2); return true; }
    case KGB_F32: case KGB_C64: { const float f = 1.0f; memcpy(bytes, &f, 4); return true; }
    case KGB_F64: case KGB_C128: { const double d = 1.0; memcpy(bytes, &d, 8); return true; }
    default: return false;
  }
}

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

int fill(kgb_tensor* out, const unsigned char bytes[16], kgb_stream stream) {
  const int32_t elem = kgb_dtype_size(out->dtype);
  const char* options = options_for(elem);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const cl_long n = kgb_numel(out);
  if (n == 0) return KGB_OK;
  Geometry g;
  const cl_int rank = fold(out, g);
  const bool contiguous = rank == 1 && g.stride[0] == 1;
  const char* name = contiguous ? "fill_contiguous" : "fill_strided";
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, name, &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  cl_uint next = 2;
  if (!contiguous) {
    err |= clSetKernelArg(k, next++, sizeof g, &g);
    err |= clSetKernelArg(k, next++, sizeof rank, &rank);
  }
  err |= clSetKernelArg(k, next++, sizeof n, &n);
  err |= clSetKernelArg(k, next, static_cast<size_t>(elem), bytes);
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

}  // namespace

extern "C" int kgb_aten_ones_like(const kgb_tensor* self, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  // out already has self's shape, the layout memory_format=preserve gives and the dtype (given, or self's).
  if (self->rank != out->rank || (dtype ? *dtype != out->dtype : self->dtype != out->dtype)) return KGB_ERR_INVALID;
  unsigned char bytes[16];
  if (!one_bytes(out->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill(out, bytes, stream);
}
