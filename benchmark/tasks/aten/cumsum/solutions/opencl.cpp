// aten/cumsum in OpenCL: inclusive prefix sums along `dim`.
// Short slices: one work-item scans one slice (neighbouring work-items take
// neighbouring slices, so the usual layouts read neighbouring addresses).
// Long slices are cut into chunks of 128 and scanned in three passes over a
// temporary buffer: (1) every chunk's sum, (2) per slice an exclusive scan of
// its chunk sums, (3) every chunk scanned again from its offset.
// Accumulation as PyTorch on the CPU: double for f32/f64, float for f16/bf16,
// long for integers; each output rounded once to T.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr cl_long kChunk = 128;
constexpr size_t kGroup = 256;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#if KGB_DT == 6 || KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define CHUNK 128

#if KGB_DT == 6
typedef float S; typedef double ACC;
#define LOAD(v) ((double)(v))
#define STORE(v) ((float)(v))
#elif KGB_DT == 7
typedef double S; typedef double ACC;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef float ACC;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_DT == 5
typedef ushort S; typedef float ACC;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#elif KGB_DT == 2
typedef int S; typedef long ACC;
#define LOAD(v) ((long)(v))
#define STORE(v) ((int)(v))
#elif KGB_DT == 3
typedef long S; typedef long ACC;
#define LOAD(v) (v)
#define STORE(v) (v)
#endif

// The other dimensions, row-major: sizes and strides in self (a) and out (b).
typedef struct { long size[8]; long sa[8]; long sb[8]; } Slices;

void slice_base(const Slices* g, int rank, long s, long* a, long* b) {
  long oa = 0, ob = 0;
  for (int k = rank - 1; k >= 0; --k) {
    long q = s / g->size[k], i = s - q * g->size[k];
    s = q;
    oa += i * g->sa[k];
    ob += i * g->sb[k];
  }
  *a = oa;
  *b = ob;
}

__kernel void scan_items(__global S* out, long o_off, __global const S* in, long i_off, Slices g, int rank, long len,
                         long in_step, long out_step, long slices) {
  long s = get_global_id(0);
  if (s >= slices) return;
  long a, b;
  slice_base(&g, rank, s, &a, &b);
  ACC run = 0;
  for (long k = 0; k < len; ++k) {
    run += LOAD(in[i_off + a + k * in_step]);
    out[o_off + b + k * out_step] = STORE(run);
  }
}

// Work-item w = chunk * slices + slice.
__kernel void chunk_sums(__global ACC* partial, __global const S* in, long i_off, Slices g, int rank, long len,
                         long in_step, long slices, long chunks) {
  long w = get_global_id(0);
  if (w >= slices * chunks) return;
  long c = w / slices, s = w - c * slices;
  long a, b;
  slice_base(&g, rank, s, &a, &b);
  long end = min(len, (c + 1) * CHUNK);
  ACC acc = 0;
  for (long k = c * CHUNK; k < end; ++k) acc += LOAD(in[i_off + a + k * in_step]);
  partial[w] = acc;
}

__kernel void chunk_offsets(__global ACC* partial, long slices, long chunks) {
  long s = get_global_id(0);
  if (s >= slices) return;
  ACC run = 0;
  for (long c = 0; c < chunks; ++c) {
    ACC v = partial[c * slices + s];
    partial[c * slices + s] = run;
    run += v;
  }
}

__kernel void chunk_scan(__global S* out, long o_off, __global const S* in, long i_off, __global const ACC* partial,
                         Slices g, int rank, long len, long in_step, long out_step, long slices, long chunks) {
  long w = get_global_id(0);
  if (w >= slices * chunks) return;
  long c = w / slices, s = w - c * slices;
  long a, b;
  slice_base(&g, rank, s, &a, &b);
  long end = min(len, (c + 1) * CHUNK);
  ACC run = partial[w];
  for (long k = c * CHUNK; k < end; ++k) {
    run += LOAD(in[i_off + a + k * in_step]);
    out[o_off + b + k * out_step] = STORE(run);
  }
}
)CLC";

struct Slices {
  cl_long size[8], sa[8], sb[8];
};

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

size_t accumulator_size(int32_t dtype) { return dtype == KGB_F16 || dtype == KGB_BF16 ? 4 : 8; }

size_t items(cl_long n) { return (static_cast<size_t>(n) + kGroup - 1) / kGroup * kGroup; }

// Arguments in order; a tensor takes two (buffer, element offset).
struct ArgList {
  kgb_stream stream;
  cl_kernel kernel;
  cl_uint next = 0;
  cl_int error = CL_SUCCESS;
  template <typename T>
  ArgList& value(const T& v) {
    if (error == CL_SUCCESS) error = clSetKernelArg(kernel, next, sizeof v, &v);
    ++next;
    return *this;
  }
  ArgList& tensor(const kgb_tensor* t) {
    if (error == CL_SUCCESS) error = kgb_cl_set_tensor_arg(stream, kernel, next, t);
    next += 2;
    return *this;
  }
};

}  // namespace

extern "C" int kgb_aten_cumsum(const kgb_tensor* self, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(self->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (!kgb_cl_has_fp64(stream) && (self->dtype == KGB_F64 || self->dtype == KGB_F32)) return KGB_ERR_UNSUPPORTED;
  const int rank = self->rank;
  if (out->rank != rank) return KGB_ERR_INVALID;
  const int64_t nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  Slices g{};
  int kept = 0;
  cl_long slices = 1;
  for (int d = 0; d < rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
    if (d == dim) continue;
    slices *= self->sizes[d];
    if (self->sizes[d] == 1) continue;
    if (kept > 0 && g.sa[kept - 1] == self->strides[d] * self->sizes[d] &&
        g.sb[kept - 1] == out->strides[d] * self->sizes[d]) {
      g.size[kept - 1] *= self->sizes[d];
      g.sa[kept - 1] = self->strides[d];
      g.sb[kept - 1] = out->strides[d];
      continue;
    }
    g.size[kept] = self->sizes[d];
    g.sa[kept] = self->strides[d];
    g.sb[kept] = out->strides[d];
    ++kept;
  }
  const cl_long len = rank == 0 ? 1 : self->sizes[dim];
  const cl_long in_step = rank == 0 ? 0 : self->strides[dim], out_step = rank == 0 ? 0 : out->strides[dim];
  if (slices == 0 || len == 0) return KGB_OK;
  const size_t local = kGroup;

  if (len <= 4 * kChunk) {
    cl_kernel k = nullptr;
    if (kgb_cl_get_kernel(stream, kSource, options, "scan_items", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
    ArgList args{stream, k};
    args.tensor(out).tensor(self).value(g).value(kept).value(len).value(in_step).value(out_step).value(slices);
    if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
    size_t global = items(slices);
    return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }

  const cl_long chunks = (len + kChunk - 1) / kChunk;
  cl_kernel sums = nullptr, offsets = nullptr, scan = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "chunk_sums", &sums) != CL_SUCCESS ||
      kgb_cl_get_kernel(stream, kSource, options, "chunk_offsets", &offsets) != CL_SUCCESS ||
      kgb_cl_get_kernel(stream, kSource, options, "chunk_scan", &scan) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = CL_SUCCESS;
  const size_t partial_bytes = static_cast<size_t>(slices * chunks) * accumulator_size(self->dtype);
  cl_mem partial = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, partial_bytes, nullptr, &err);
  if (!partial) return KGB_ERR_INVALID;
  ArgList a{stream, sums};
  a.value(partial).tensor(self).value(g).value(kept).value(len).value(in_step).value(slices).value(chunks);
  ArgList b{stream, offsets};
  b.value(partial).value(slices).value(chunks);
  ArgList c{stream, scan};
  c.tensor(out).tensor(self).value(partial).value(g).value(kept).value(len).value(in_step).value(out_step);
  c.value(slices).value(chunks);
  int status = KGB_OK;
  if (a.error != CL_SUCCESS || b.error != CL_SUCCESS || c.error != CL_SUCCESS) {
    status = KGB_ERR_INVALID;
  } else {
    size_t all = items(slices * chunks), per_slice = items(slices);
    if (kgb_cl_enqueue(stream, sums, 1, &all, &local) != CL_SUCCESS ||
        kgb_cl_enqueue(stream, offsets, 1, &per_slice, &local) != CL_SUCCESS ||
        kgb_cl_enqueue(stream, scan, 1, &all, &local) != CL_SUCCESS)
      status = KGB_ERR_INVALID;
  }
  // Released once the enqueued kernels are done with it.
  clReleaseMemObject(partial);
  return status;
}
