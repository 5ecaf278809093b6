// aten/bmm in OpenCL: out[b] = self[b] @ mat2[b] for strided 3-D views.
// A 16 x 16 tiled product per batch (range dimension 2 is the batch): each
// work-group stages a 16 x 16 tile of both operands in local memory per step
// along K and each work-item accumulates one output. Range dimension 0 runs
// over the output index that is contiguous in memory: for a row-major out the host computes out^T = mat2^T self^T, which is
// the same kernel with the operands' roles and strides swapped, so loads and
// stores stay coalesced in the usual layouts. Accumulation: double for f64,
// float otherwise; f16/bf16 are ushort data converted in the kernel.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr size_t kTile = 16;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define TILE 16

#if KGB_DT == 6
typedef float S; typedef float ACC;
#define LOAD(v) (v)
#define STORE(v) (v)
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
#endif

// C[q](i, j) = sum over l of A[q](i, l) B[q](l, j); A[q](i, l) = a[a_off + q*saq + i*sai + l*sal] and so on.
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul(__global S* c, long c_off, __global const S* a, long a_off, __global const S* b, long b_off,
            long M, long N, long K, long sai, long sal, long sbl, long sbj, long sci, long scj,
            long saq, long sbq, long scq) {
  long q = get_group_id(2);
  a_off += q * saq;
  b_off += q * sbq;
  c_off += q * scq;
  __local ACC ta[TILE][TILE + 1];  // ta[l][i]
  __local ACC tb[TILE][TILE + 1];  // tb[j][l]
  int tx = get_local_id(0), ty = get_local_id(1);
  long i0 = (long)get_group_id(0) * TILE, j0 = (long)get_group_id(1) * TILE;
  ACC acc = 0;
  for (long l0 = 0; l0 < K; l0 += TILE) {
    long ai = i0 + tx, al = l0 + ty;
    ta[ty][tx] = (ai < M && al < K) ? LOAD(a[a_off + ai * sai + al * sal]) : (ACC)0;
    long bl = l0 + tx, bj = j0 + ty;
    tb[ty][tx] = (bl < K && bj < N) ? LOAD(b[b_off + bl * sbl + bj * sbj]) : (ACC)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = 0; l < TILE; ++l) acc += ta[l][tx] * tb[ty][l];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  long i = i0 + tx, j = j0 + ty;
  if (i < M && j < N) c[c_off + i * sci + j * scj] = STORE(acc);
}
)CLC";

const char* build_options(int32_t dtype) {
  switch (dtype) {
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    case KGB_F64: return "-cl-std=CL1.2 -DKGB_DT=7";
    default: return nullptr;
  }
}

inline cl_long magnitude(cl_long v) { return v < 0 ? -v : v; }

}  // namespace

extern "C" int kgb_aten_bmm(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || mat2->dtype != out->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  if (self->rank != 3 || mat2->rank != 3 || out->rank != 3) return KGB_ERR_INVALID;
  const cl_long B = self->sizes[0];
  cl_long M = self->sizes[1], K = self->sizes[2], N = mat2->sizes[2];
  if (mat2->sizes[0] != B || mat2->sizes[1] != K || out->sizes[0] != B || out->sizes[1] != M || out->sizes[2] != N)
    return KGB_ERR_INVALID;
  if (B == 0 || M == 0 || N == 0) return KGB_OK;
  const kgb_tensor* a = self;
  const kgb_tensor* b = mat2;
  cl_long sai = self->strides[1], sal = self->strides[2], sbl = mat2->strides[1], sbj = mat2->strides[2];
  cl_long sci = out->strides[1], scj = out->strides[2];
  cl_long saq = self->strides[0], sbq = mat2->strides[0];
  // Range dimension 0 follows the contiguous index of out: for a row-major
  // out compute out^T = mat2^T self^T.
  if (N > 1 && (M == 1 || magnitude(scj) < magnitude(sci))) {
    const kgb_tensor* t = a;
    a = b;
    b = t;
    cl_long nai = sbj, nal = sbl, nbl = sal, nbj = sai;
    sai = nai, sal = nal, sbl = nbl, sbj = nbj;
    cl_long s = sci;
    sci = scj, scj = s;
    s = M;
    M = N, N = s;
    s = saq;
    saq = sbq, sbq = s;
  }

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "matmul", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, a);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, b);
  const cl_long values[] = {M, N, K, sai, sal, sbl, sbj, sci, scj, saq, sbq, out->strides[0]};
  for (cl_uint i = 0; i < 12; ++i) err |= clSetKernelArg(k, 6 + i, sizeof(cl_long), &values[i]);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local[3] = {kTile, kTile, 1};
  const size_t global[3] = {(static_cast<size_t>(M) + kTile - 1) / kTile * kTile,
                            (static_cast<size_t>(N) + kTile - 1) / kTile * kTile, static_cast<size_t>(B)};
  return kgb_cl_enqueue(stream, k, 3, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
