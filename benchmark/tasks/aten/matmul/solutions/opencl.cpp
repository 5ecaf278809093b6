// aten/matmul in OpenCL: ATen's rank rules over a tiled GEMM. The operands
// are reduced to a batch of M x K by K x N products: a 1-D self is one row,
// a 1-D other one column, and the batch dims broadcast (stride 0 where an
// operand has size 1 or lacks the dim). When every batch shares one other
// matrix, batch dims that step like rows are merged into M, so a
// [B, S, K] @ [K, N] product is one large GEMM. The remaining batch is range
// dimension 2. Each work-group stages a 16 x 16 tile of both operands in
// local memory per step along K and each work-item accumulates one output.
// Range dimension 0 runs over the output index that is contiguous in memory:
// for a row-major out the host computes out^T = other^T self^T, the same
// kernel with the operands' roles and strides swapped, so loads and stores
// stay coalesced in the usual layouts. Accumulation: double for f64, float
// otherwise; f16/bf16 are ushort data converted in the kernel.
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

// Batch dims: batch q unravels row-major over size[], strides per operand.
typedef struct { long size[8]; long sa[8]; long sb[8]; long sc[8]; } Batch;

// C[q](i, j) = sum over l of A[q](i, l) B[q](l, j); A[q](i, l) =
// a[a_off + offset_a(q) + i*sai + l*sal] and so on.
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul(__global S* c, long c_off, __global const S* a, long a_off, __global const S* b, long b_off,
            long M, long N, long K, long sai, long sal, long sbl, long sbj, long sci, long scj, Batch g,
            int batch_rank) {
  long q = get_group_id(2);
  for (int d = batch_rank - 1; d >= 0; --d) {
    long r = q % g.size[d];
    q /= g.size[d];
    a_off += r * g.sa[d];
    b_off += r * g.sb[d];
    c_off += r * g.sc[d];
  }
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

// The same layout as the OpenCL C struct Batch.
struct Batch {
  cl_long size[8] = {}, sa[8] = {}, sb[8] = {}, sc[8] = {};
};

}  // namespace

extern "C" int kgb_aten_matmul(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || other->dtype != out->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const int r1 = self->rank, r2 = other->rank;
  if (r1 < 1 || r2 < 1) return KGB_ERR_INVALID;
  const cl_long K = self->sizes[r1 - 1];
  if ((r2 >= 2 ? other->sizes[r2 - 2] : other->sizes[0]) != K) return KGB_ERR_INVALID;
  cl_long M = r1 >= 2 ? self->sizes[r1 - 2] : 1, N = r2 >= 2 ? other->sizes[r2 - 1] : 1;
  const int bs = r1 > 2 ? r1 - 2 : 0, bo = r2 > 2 ? r2 - 2 : 0, br = bs > bo ? bs : bo;
  if (out->rank != br + (r1 >= 2) + (r2 >= 2)) return KGB_ERR_INVALID;

  // Batch dims (broadcast), then the row dim M as one more "dim" that does
  // not move other: neighbours merge when all three views step through them
  // as one, which folds [B, S, K] @ [K, N] into a single GEMM.
  cl_long size[9], sa[9], sb[9], sc[9];
  int n = 0;
  for (int d = 0; d <= br; ++d) {
    cl_long z, a_s, b_s, c_s;
    if (d < br) {
      const int ds = d - (br - bs), dob = d - (br - bo);
      const cl_long s = ds >= 0 ? self->sizes[ds] : 1, o = dob >= 0 ? other->sizes[dob] : 1;
      if (s != o && s != 1 && o != 1) return KGB_ERR_INVALID;
      z = s == 1 ? o : s;
      if (out->sizes[d] != z) return KGB_ERR_INVALID;
      a_s = s == 1 ? 0 : self->strides[ds];
      b_s = o == 1 ? 0 : other->strides[dob];
      c_s = out->strides[d];
    } else {
      if (r1 >= 2 && out->sizes[br] != M) return KGB_ERR_INVALID;
      z = M;
      a_s = r1 >= 2 ? self->strides[r1 - 2] : 0;
      b_s = 0;
      c_s = r1 >= 2 ? out->strides[br] : 0;
    }
    if (z == 1 && d < br) continue;  // a size-1 batch dim adds no offset
    size[n] = z, sa[n] = a_s, sb[n] = b_s, sc[n] = c_s;
    if (n > 0 && sb[n - 1] == 0 && sb[n] == 0 && sa[n - 1] == sa[n] * z && sc[n - 1] == sc[n] * z) {
      size[n - 1] *= z, sa[n - 1] = a_s, sc[n - 1] = c_s;
    } else {
      ++n;
    }
  }
  if (r2 >= 2 && out->sizes[out->rank - 1] != N) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;
  M = size[n - 1];
  cl_long sai = sa[n - 1], sal = self->strides[r1 - 1];
  cl_long sbl = r2 >= 2 ? other->strides[r2 - 2] : other->strides[0], sbj = r2 >= 2 ? other->strides[r2 - 1] : 0;
  cl_long sci = sc[n - 1], scj = r2 >= 2 ? out->strides[out->rank - 1] : 0;
  Batch g;
  const cl_int batch_rank = n - 1;
  size_t batches = 1;
  for (int d = 0; d < batch_rank; ++d) {
    g.size[d] = size[d], g.sa[d] = sa[d], g.sb[d] = sb[d], g.sc[d] = sc[d];
    batches *= static_cast<size_t>(size[d]);
  }
  const kgb_tensor* a = self;
  const kgb_tensor* b = other;
  // Range dimension 0 follows the contiguous index of out: for a row-major
  // out compute out^T = other^T self^T.
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
    for (int d = 0; d < batch_rank; ++d) {
      s = g.sa[d];
      g.sa[d] = g.sb[d], g.sb[d] = s;
    }
  }

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "matmul", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, a);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, b);
  const cl_long values[] = {M, N, K, sai, sal, sbl, sbj, sci, scj};
  for (cl_uint i = 0; i < 9; ++i) err |= clSetKernelArg(k, 6 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 15, sizeof(Batch), &g);
  err |= clSetKernelArg(k, 16, sizeof(cl_int), &batch_rank);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local[3] = {kTile, kTile, 1};
  const size_t global[3] = {(static_cast<size_t>(M) + kTile - 1) / kTile * kTile,
                            (static_cast<size_t>(N) + kTile - 1) / kTile * kTile, batches};
  return kgb_cl_enqueue(stream, k, 3, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
