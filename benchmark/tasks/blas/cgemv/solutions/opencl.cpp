// blas/cgemv in OpenCL: y := alpha * op(A) x + beta * y (op N/T/C), column-major.
// Single-precision complex (c64: two floats, real part first, like cuComplex); products and sums in float, op C conjugates A.
//
// A is column-major (element (i, j) at a[i * rs + j * cs]); op N reduces
// along rows, op T/C along columns, each with its own kernel:
// - GPUs: op N runs 32 x 8 work-groups that own 32 rows, the 8 row groups
//   taking interleaved columns (neighbouring work-items read neighbouring
//   elements of one column); op T/C runs 32 x 8 work-groups that own 8
//   columns, 32 work-items striding down each column. Partial sums meet in
//   local memory in a fixed order.
// - CPU devices (PoCL runs a work-group as a loop and vectorises across
//   work-items): one work-item per output element, no local memory; for op N
//   neighbouring work-items read neighbouring rows of each column.
// The batch is the last NDRange dimension. One product.
// The vectors are read through their signed increments (a negative one walks
// the vector from its far end: the view's data is element 0). BLAS rules:
// m == 0 or n == 0 returns before touching y; alpha == 0 reads neither A nor
// x; beta == 0 never reads y.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
typedef float2 T;  // (real, imaginary)
T zero() { return (T)(0, 0); }
T add(T a, T b) { return a + b; }
T mul(T a, T b) { return (T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
T mac(T acc, T a, T b) { return (T)(fma(a.x, b.x, fma(-a.y, b.y, acc.x)), fma(a.x, b.y, fma(a.y, b.x, acc.y))); }  // acc + a * b
T conj_if(T a, int conj) { return conj ? (T)(a.x, -a.y) : a; }

// Item b's matrix and vectors.
#define OPERANDS __global const T* a, long ao, __global const T* x, long xo, __global T* y, long yo
#define ITEM(b) __global const T* ap = a + ao; __global const T* xp = x + xo; __global T* yp = y + yo

// y := alpha * sum + beta * y; beta == 0 never reads y.
void finish(__global T* y, T sum, T alpha, T beta, int read_y) {
  const T r = mul(alpha, sum);
  *y = read_y ? mac(r, beta, *y) : r;
}

__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void gemv_n(OPERANDS, long m, long n, long rs, long cs, long incx, long incy, T alpha, T beta, int read_ax, int read_y) {
  __local T part[8][32];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const long i = get_global_id(0), b = get_global_id(2);
  ITEM(b);
  T acc = zero();
  if (read_ax && i < m) {
    __global const T* ar = ap + i * rs;
    long j = ty;
    for (; j + 24 < n; j += 32) {
      const T a0 = ar[j * cs], a1 = ar[(j + 8) * cs], a2 = ar[(j + 16) * cs], a3 = ar[(j + 24) * cs];
      const T x0 = xp[j * incx], x1 = xp[(j + 8) * incx], x2 = xp[(j + 16) * incx], x3 = xp[(j + 24) * incx];
      acc = mac(acc, a0, x0);
      acc = mac(acc, a1, x1);
      acc = mac(acc, a2, x2);
      acc = mac(acc, a3, x3);
    }
    for (; j < n; j += 8) acc = mac(acc, ar[j * cs], xp[j * incx]);
  }
  part[ty][tx] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (ty == 0 && i < m) {
    T sum = part[0][tx];
    for (int g = 1; g < 8; ++g) sum = add(sum, part[g][tx]);
    finish(yp + i * incy, sum, alpha, beta, read_y);
  }
}

__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void gemv_t(OPERANDS, long m, long n, long rs, long cs, long incx, long incy, T alpha, T beta, int read_ax, int read_y,
            int conj) {
  __local T part[8][32];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const long j = get_global_id(1), b = get_global_id(2);
  ITEM(b);
  T acc = zero();
  if (read_ax && j < n) {
    __global const T* ac = ap + j * cs;
    long i = tx;
    for (; i + 96 < m; i += 128) {
      const T a0 = ac[i * rs], a1 = ac[(i + 32) * rs], a2 = ac[(i + 64) * rs], a3 = ac[(i + 96) * rs];
      const T x0 = xp[i * incx], x1 = xp[(i + 32) * incx], x2 = xp[(i + 64) * incx], x3 = xp[(i + 96) * incx];
      acc = mac(acc, conj_if(a0, conj), x0);
      acc = mac(acc, conj_if(a1, conj), x1);
      acc = mac(acc, conj_if(a2, conj), x2);
      acc = mac(acc, conj_if(a3, conj), x3);
    }
    for (; i < m; i += 32) acc = mac(acc, conj_if(ac[i * rs], conj), xp[i * incx]);
  }
  part[ty][tx] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = 16; width > 0; width /= 2) {
    if (tx < width) part[ty][tx] = add(part[ty][tx], part[ty][tx + width]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tx == 0 && j < n) finish(yp + j * incy, part[ty][0], alpha, beta, read_y);
}

// CPU devices: work-item (r, b) computes output r of item b.
__kernel void gemv_n_cpu(OPERANDS, long m, long n, long rs, long cs, long incx, long incy, T alpha, T beta, int read_ax,
                         int read_y) {
  const long i = get_global_id(0), b = get_global_id(1);
  if (i >= m) return;
  ITEM(b);
  T acc = zero();
  if (read_ax) {
    __global const T* ar = ap + i * rs;
    for (long j = 0; j < n; ++j) acc = mac(acc, ar[j * cs], xp[j * incx]);
  }
  finish(yp + i * incy, acc, alpha, beta, read_y);
}

__kernel void gemv_t_cpu(OPERANDS, long m, long n, long rs, long cs, long incx, long incy, T alpha, T beta, int read_ax,
                         int read_y, int conj) {
  const long j = get_global_id(0), b = get_global_id(1);
  if (j >= n) return;
  ITEM(b);
  T acc = zero();
  if (read_ax) {
    __global const T* ac = ap + j * cs;
    for (long i = 0; i < m; ++i) acc = mac(acc, conj_if(ac[i * rs], conj), xp[i * incx]);
  }
  finish(yp + j * incy, acc, alpha, beta, read_y);
}
)CLC";

size_t round_up(int64_t v, size_t to) { return (static_cast<size_t>(v) + to - 1) / to * to; }

}  // namespace

extern "C" int kgb_blas_cgemv(int trans, kgb_complex alpha, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta, kgb_tensor* y, kgb_stream stream) {
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || y->rank != 1) return KGB_ERR_INVALID;
  const int64_t batch = 1;
  const cl_long m = A->sizes[0], n = A->sizes[1], rs = A->strides[0], cs = A->strides[1];
  const cl_long incx = x->strides[0], incy = y->strides[0];
  if (x->sizes[0] != (trans == 0 ? n : m) || y->sizes[0] != (trans == 0 ? m : n)) return KGB_ERR_INVALID;
  if (m == 0 || n == 0 || batch == 0) return KGB_OK;  // quick return: y untouched
  const bool cpu_device = (kgb_cl_device_type(stream) & CL_DEVICE_TYPE_CPU) != 0;
  const char* name = trans == 0 ? (cpu_device ? "gemv_n_cpu" : "gemv_n") : (cpu_device ? "gemv_t_cpu" : "gemv_t");
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", name, &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, A);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, x);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, y);
  const cl_uint next = 6;
  const cl_long shape[] = {m, n, rs, cs, incx, incy};
  for (cl_uint i = 0; i < 6; ++i) err |= clSetKernelArg(k, next + i, sizeof(cl_long), &shape[i]);
  const cl_float2 a = {{static_cast<cl_float>(alpha.re), static_cast<cl_float>(alpha.im)}}, be = {{static_cast<cl_float>(beta.re), static_cast<cl_float>(beta.im)}};
  const cl_int read_ax = alpha.re != 0.0 || alpha.im != 0.0, read_y = beta.re != 0.0 || beta.im != 0.0, conj = trans == 2;
  err |= clSetKernelArg(k, next + 6, sizeof a, &a);
  err |= clSetKernelArg(k, next + 7, sizeof be, &be);
  err |= clSetKernelArg(k, next + 8, sizeof read_ax, &read_ax);
  err |= clSetKernelArg(k, next + 9, sizeof read_y, &read_y);
  if (trans != 0) err |= clSetKernelArg(k, next + 10, sizeof conj, &conj);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const int64_t len_y = trans == 0 ? m : n;
  if (cpu_device) {
    const size_t global[2] = {round_up(len_y, 16), static_cast<size_t>(batch)}, local[2] = {16, 1};
    return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }
  const size_t n_global[3] = {round_up(m, 32), 8, static_cast<size_t>(batch)}, n_local[3] = {32, 8, 1};
  const size_t t_global[3] = {32, round_up(n, 8), static_cast<size_t>(batch)}, t_local[3] = {32, 8, 1};
  const bool op_n = trans == 0;
  return kgb_cl_enqueue(stream, k, 3, op_n ? n_global : t_global, op_n ? n_local : t_local) == CL_SUCCESS ? KGB_OK
                                                                                                       : KGB_ERR_INVALID;
}
