// aten/linear in OpenCL: out = input @ weight^T + bias for strided views.
// input [..., K] is an M x K matrix when its leading dims collapse into one
// row stride; otherwise the outer leading dims become a batch (range
// dimension 2) over the innermost one. weight [N, K] is read as weight^T.
// A 16 x 16 tiled product: each work-group stages a 16 x 16 tile of both
// operands in local memory per step along K and each work-item accumulates
// one output, adds the bias and rounds once. Range dimension 0 runs over the
// output index that is contiguous in memory: for a row-major out the host
// computes out^T = weight input^T, the same kernel with the operands' roles
// and strides swapped (the bias then follows range dimension 0), so loads
// and stores stay coalesced in the usual layouts. Accumulation: double for
// f64, float otherwise; f16/bf16 are ushort data converted in the kernel.
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

// C[q](i, j) = sum over l of A[q](i, l) B[q](l, j) + bias; A[q](i, l) =
// a[a_off + offset_a(q) + i*sai + l*sal] and so on. bias_mode: 0 none,
// 1 bias[j * bias_s], 2 bias[i * bias_s].
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul(__global S* c, long c_off, __global const S* a, long a_off, __global const S* b, long b_off,
            __global const S* bias, long bias_off, long M, long N, long K, long sai, long sal, long sbl, long sbj,
            long sci, long scj, long bias_s, int bias_mode, Batch g, int batch_rank) {
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
  if (i < M && j < N) {
    if (bias_mode != 0) acc += LOAD(bias[bias_off + (bias_mode == 1 ? j : i) * bias_s]);
    c[c_off + i * sci + j * scj] = STORE(acc);
  }
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

extern "C" int kgb_aten_linear(const kgb_tensor* input, const kgb_tensor* weight, const kgb_tensor* bias, kgb_tensor* out,
                               kgb_stream stream) {
  if (input->dtype != out->dtype || weight->dtype != out->dtype || (bias && bias->dtype != out->dtype))
    return KGB_ERR_INVALID;
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  if (input->rank < 1 || weight->rank != 2 || out->rank != input->rank) return KGB_ERR_INVALID;
  const int last = input->rank - 1;
  cl_long K = input->sizes[last], N = weight->sizes[0];
  if (weight->sizes[1] != K || out->sizes[last] != N) return KGB_ERR_INVALID;
  for (int d = 0; d < last; ++d)
    if (out->sizes[d] != input->sizes[d]) return KGB_ERR_INVALID;
  if (bias && (bias->rank != 1 || bias->sizes[0] != N)) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;

  // Leading dims: merge neighbours that both views step through as one; the
  // innermost merged dim gives the rows, the others the batch.
  cl_long size[8], sa[8], sc[8];
  int n = 0;
  for (int d = 0; d < last; ++d) {
    if (input->sizes[d] == 1) continue;
    size[n] = input->sizes[d], sa[n] = input->strides[d], sc[n] = out->strides[d];
    if (n > 0 && sa[n - 1] == sa[n] * size[n] && sc[n - 1] == sc[n] * size[n]) {
      size[n - 1] *= size[n], sa[n - 1] = sa[n], sc[n - 1] = sc[n];
    } else {
      ++n;
    }
  }
  cl_long M = n > 0 ? size[n - 1] : 1;
  cl_long sai = n > 0 ? sa[n - 1] : 0, sal = input->strides[last];
  cl_long sbl = weight->strides[1], sbj = weight->strides[0];  // B = weight^T
  cl_long sci = n > 0 ? sc[n - 1] : 0, scj = out->strides[last];
  Batch g;
  const cl_int batch_rank = n > 0 ? n - 1 : 0;
  size_t batches = 1;
  for (int d = 0; d < batch_rank; ++d) {
    g.size[d] = size[d], g.sa[d] = sa[d], g.sb[d] = 0, g.sc[d] = sc[d];
    batches *= static_cast<size_t>(size[d]);
  }
  const kgb_tensor* a = input;
  const kgb_tensor* b = weight;
  cl_int bias_mode = bias ? 1 : 0;
  // Range dimension 0 follows the contiguous index of out: for a row-major
  // out compute out^T = weight input^T.
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
    if (bias) bias_mode = 2;
  }

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "matmul", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, a);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, b);
  err |= kgb_cl_set_tensor_arg(stream, k, 6, bias ? bias : weight);  // any valid buffer when there is no bias
  const cl_long values[] = {M, N, K, sai, sal, sbl, sbj, sci, scj, bias ? bias->strides[0] : 0};
  for (cl_uint i = 0; i < 10; ++i) err |= clSetKernelArg(k, 8 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 18, sizeof(cl_int), &bias_mode);
  err |= clSetKernelArg(k, 19, sizeof(Batch), &g);
  err |= clSetKernelArg(k, 20, sizeof(cl_int), &batch_rank);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local[3] = {kTile, kTile, 1};
  const size_t global[3] = {(static_cast<size_t>(M) + kTile - 1) / kTile * kTile,
                            (static_cast<size_t>(N) + kTile - 1) / kTile * kTile, batches};
  return kgb_cl_enqueue(stream, k, 3, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
