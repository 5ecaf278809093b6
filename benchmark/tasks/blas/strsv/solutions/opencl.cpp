// blas/strsv in OpenCL: solves op(A) * z = x in place, f32, column-major A
// (uplo LOWER = 0 / UPPER = 1, trans N = 0 / T = 1 / C = 2, diag NON_UNIT = 0
// / UNIT = 1; the other triangle, and the diagonal for UNIT, are never read).
//
// Blocked substitution over blocks of NB = 64 unknowns in solve order
// (forward when op(A) is lower triangular, backward otherwise), one kernel
// enqueue per block on the in-order queue, so the enqueues order the blocks
// and no inter-group synchronisation or scratch buffer is needed. Enqueue k
// (the blocks solved so far end with block k):
// - work-group 0 applies block k's solution to the unknowns of block k + 1
//   (a 64 x 64 tile product), then solves block k + 1's diagonal block from
//   local memory (one work-item: at most 64 * 65 / 2 multiply-adds);
// - every other work-group applies block k's solution to a 64-row chunk of
//   the unknowns after block k + 1: x(rest) -= op(A)(rest, k) * x(k), so the
//   bulk of the matrix streams through the whole device.
// Tiles are staged in local memory and loaded along A's unit-stride index
// (rows of op(A) for N, columns for T/C): neighbouring work-items read
// neighbouring elements. Only work-group 0 writes the unknowns it solves.
// Increments of either sign: data[i * incx] is element i.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#define NB 64
#define Q 4
typedef struct { long lda, n, blocks, incx; int forward, transposed, unit; } P;

int block_size(long n, long kb) { return (int)min((long)NB, n - kb * NB); }

/* tile[r][c] = op(A)(i0 + r, c0 + c) for r < rh, c < cw, 0 elsewhere; with
   `triangle` only what a diagonal solve reads. */
void load_tile(__global const float* a, long lda, int transposed, int forward, int unit, __local float (*tile)[NB + 1],
               long i0, int rh, long c0, int cw, int triangle) {
  const int tx = get_local_id(0) % NB, q = get_local_id(0) / NB;
  for (int k = q; k < NB; k += Q) {
    const int r = transposed ? k : tx, c = transposed ? tx : k;
    int use = r < rh && c < cw;
    if (triangle) use = use && ((forward ? c < r : c > r) || (c == r && !unit));
    float v = 0.0f;
    if (use) v = transposed ? a[(c0 + c) + (i0 + r) * lda] : a[(i0 + r) + (c0 + c) * lda];
    tile[r][c] = v;
  }
}

void tile_times(__local float (*tile)[NB + 1], __local const float* xc, __local float (*part)[NB], __local float* out) {
  const int tx = get_local_id(0) % NB, q = get_local_id(0) / NB;
  float sum = 0.0f;
  for (int c = q; c < NB; c += Q) sum = fma(tile[tx][c], xc[c], sum);
  part[q][tx] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (q == 0) out[tx] = (part[0][tx] + part[1][tx]) + (part[2][tx] + part[3][tx]);
  barrier(CLK_LOCAL_MEM_FENCE);
}

__kernel __attribute__((reqd_work_group_size(NB * Q, 1, 1)))
void strsv_step(__global const float* a, long a_off, __global float* x, long x_off, P p, long k) {
  __local float tile[NB][NB + 1];
  __local float part[Q][NB];
  __local float xk[NB];
  __local float acc[NB];
  __local float rhs[NB];
  a += a_off;
  x += x_off;
  const int tid = get_local_id(0);
  const long next = k + 1;
  const long kb_cur = p.forward ? k : p.blocks - 1 - k, kb_next = p.forward ? next : p.blocks - 1 - next;
  if (k >= 0 && tid < NB) {
    const int cw = block_size(p.n, kb_cur);
    xk[tid] = tid < cw ? x[(kb_cur * NB + tid) * p.incx] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  if (get_group_id(0) == 0) {
    if (next >= p.blocks) return;
    const long i0 = kb_next * NB;
    const int rh = block_size(p.n, kb_next);
    if (k >= 0) {
      load_tile(a, p.lda, p.transposed, p.forward, p.unit, tile, i0, rh, kb_cur * NB, block_size(p.n, kb_cur), 0);
      barrier(CLK_LOCAL_MEM_FENCE);
      tile_times(tile, xk, part, acc);
    } else if (tid < NB) {
      acc[tid] = 0.0f;
    }
    load_tile(a, p.lda, p.transposed, p.forward, p.unit, tile, i0, rh, i0, rh, 1);
    if (tid < rh) rhs[tid] = x[(i0 + tid) * p.incx] - acc[tid];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid == 0) {
      for (int t = 0; t < rh; ++t) {
        const int r = p.forward ? t : rh - 1 - t;
        float v = rhs[r];
        for (int u = 0; u < t; ++u) {
          const int c = p.forward ? u : rh - 1 - u;
          v = fma(-tile[r][c], rhs[c], v);
        }
        rhs[r] = p.unit ? v : v / tile[r][r];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < rh) x[(i0 + tid) * p.incx] = rhs[tid];
    return;
  }

  if (k < 0) return;
  const long r_begin = p.forward ? kb_next * NB + NB : 0;
  const long r_end = p.forward ? p.n : kb_next * NB;
  const long c0 = kb_cur * NB;
  const int cw = block_size(p.n, kb_cur);
  for (long i0 = r_begin + (long)(get_group_id(0) - 1) * NB; i0 < r_end; i0 += (long)(get_num_groups(0) - 1) * NB) {
    const int rh = (int)min((long)NB, r_end - i0);
    load_tile(a, p.lda, p.transposed, p.forward, p.unit, tile, i0, rh, c0, cw, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_times(tile, xk, part, acc);
    if (tid < rh) x[(i0 + tid) * p.incx] -= acc[tid];
  }
}
)CLC";

constexpr cl_long kNB = 64;
constexpr size_t kLocal = 256;          // NB * Q
constexpr cl_long kMaxUpdateGroups = 512;

struct P {
  cl_long lda, n, blocks, incx;
  cl_int forward, transposed, unit, pad;
};

}  // namespace

extern "C" int kgb_blas_strsv(int uplo, int trans, int diag, const kgb_tensor* A, kgb_tensor* x, kgb_stream stream) {
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const cl_long n = A->sizes[0];
  if (A->sizes[1] != n || x->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  P p{};
  p.lda = n > 1 ? A->strides[1] : 1;
  p.n = n;
  p.blocks = (n + kNB - 1) / kNB;
  p.incx = x->strides[0];
  p.transposed = trans != 0;
  p.forward = (uplo == 0) != (trans != 0);
  p.unit = diag == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "strsv_step", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, A);  // arguments 0, 1
  err |= kgb_cl_set_tensor_arg(stream, k, 2, x);        // arguments 2, 3
  err |= clSetKernelArg(k, 4, sizeof p, &p);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  for (cl_long step = -1; step + 1 < p.blocks; ++step) {
    const cl_long rest = n - (step + 2) * kNB;
    const cl_long chunks = step >= 0 && rest > 0 ? (rest + kNB - 1) / kNB : 0;
    const size_t global = kLocal * static_cast<size_t>(1 + (chunks < kMaxUpdateGroups ? chunks : kMaxUpdateGroups));
    if (clSetKernelArg(k, 5, sizeof step, &step) != CL_SUCCESS) return KGB_ERR_INVALID;
    if (kgb_cl_enqueue(stream, k, 1, &global, &kLocal) != CL_SUCCESS) return KGB_ERR_INVALID;
  }
  return KGB_OK;
}
