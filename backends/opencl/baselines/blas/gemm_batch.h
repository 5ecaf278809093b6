// Shared by the batched GEMM baselines on OpenCL (blas/*gemm_batched*,
// blas/*gemm_strided_batched*): the plain kernel written here (one work-item
// per element of every C[b], dot products from global memory) that serves
// where CLBlast is missing or cannot take a call (k == 0, alpha == 0, a
// layout that is not column-major), and the buffer offsets CLBlast's batched
// routines take. A task's file supplies the element type through a preamble
// defining ELEM (storage), ACC (accumulator), SCAL (alpha/beta), REAL,
// LOAD(p, i, sign) (sign -1 conjugates), MUL(x, y), ZERO and STORE(p, i, v).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../plain_common.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace kgb::opencl::plain {

inline std::string gemm_batch_source(const char* preamble) {
  return std::string(preamble) + R"CLC(
// Matrix b of a batch starts at base + b * stride (strided batches) or at
// offsets[b] (lists: the items share one buffer).
__kernel void gemm_batch(__global ELEM* c, __global const long* co, long c_base, long c_stride,
                         __global const ELEM* a, __global const long* ao, long a_base, long a_stride,
                         __global const ELEM* b, __global const long* bo, long b_base, long b_stride, int listed,
                         long batch, long M, long N, long K, long ai, long al, long bl, long bj, long ci, long cj,
                         SCAL alpha, SCAL beta, int read_c, REAL sa, REAL sb) {
  long w = get_global_id(0);
  long per = M * N;
  if (w >= batch * per) return;
  long item = w / per, r = w - item * per;
  long j = r / M, i = r - j * M;
  long a0 = listed ? ao[item] : a_base + item * a_stride;
  long b0 = listed ? bo[item] : b_base + item * b_stride;
  long c0 = (listed ? co[item] : c_base + item * c_stride) + i * ci + j * cj;
  ACC acc = ZERO;
  for (long l = 0; l < K; ++l) acc += MUL(LOAD(a, a0 + i * ai + l * al, sa), LOAD(b, b0 + l * bl + j * bj, sb));
  ACC res = MUL(alpha, acc);
  if (read_c) res += MUL(beta, LOAD(c, c0, (REAL)1));
  STORE(c, c0, res);
}
)CLC";
}

// The shared geometry of a batch: sizes from the first item (or the rank-3
// view), op(A)(i, l) at a[i * ai + l * al], op(B)(l, j) at b[l * bl + j * bj].
struct GemmGeometry {
  cl_long M = 0, N = 0, K = 0, ai = 0, al = 0, bl = 0, bj = 0, ci = 0, cj = 0;
};

inline GemmGeometry gemm_geometry(int transa, int transb, const kgb_tensor* a, const kgb_tensor* b, const kgb_tensor* c) {
  const bool ta = transa != 0, tb = transb != 0;
  GemmGeometry g;
  g.M = c->sizes[0];
  g.N = c->sizes[1];
  g.K = ta ? a->sizes[0] : a->sizes[1];
  g.ai = ta ? a->strides[1] : a->strides[0];
  g.al = ta ? a->strides[0] : a->strides[1];
  g.bl = tb ? b->strides[1] : b->strides[0];
  g.bj = tb ? b->strides[0] : b->strides[1];
  g.ci = c->strides[0];
  g.cj = c->strides[1];
  return g;
}

// One matrix argument of the plain kernel: a buffer with a base and batch
// stride (strided) or with an offsets buffer (lists).
struct BatchOperand {
  cl_mem buffer = nullptr, offsets = nullptr;
  cl_long base = 0, stride = 0;
};

inline bool strided_operand(kgb_stream stream, const kgb_tensor* t, BatchOperand* out) {
  out->stride = t->strides[2];
  return kgb_cl_tensor_buffer(stream, t, &out->buffer, &out->base) == CL_SUCCESS;
}

inline bool list_operand(kgb_stream stream, const kgb_tensor_list* l, BatchOperand* out) {
  return kgb_cl_tensor_list_buffers(stream, l, &out->buffer, &out->offsets) == CL_SUCCESS;
}

// Runs the plain kernel over the whole batch; alpha == 0 reads neither A nor
// B, beta == 0 (read_c false) never reads C; sa, sb = -1 conjugate A, B.
template <class Scal, class Real>
int run_gemm_batch(kgb_stream stream, const std::string& source, const BatchOperand& a, const BatchOperand& b,
                   const BatchOperand& c, bool listed, cl_long batch, GemmGeometry g, Scal alpha, Scal beta,
                   bool alpha_zero, bool read_c, Real sa, Real sb) {
  if (batch == 0 || g.M == 0 || g.N == 0) return KGB_OK;
  if (alpha_zero) g.K = 0;
  cl_kernel k = kernel(stream, source, "-cl-std=CL1.2", "gemm_batch");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(c.buffer).value(c.offsets).value(c.base).value(c.stride);
  args.value(a.buffer).value(a.offsets).value(a.base).value(a.stride);
  args.value(b.buffer).value(b.offsets).value(b.base).value(b.stride).value(static_cast<cl_int>(listed));
  args.value(batch).value(g.M).value(g.N).value(g.K).value(g.ai).value(g.al).value(g.bl).value(g.bj).value(g.ci).value(g.cj);
  args.value(alpha).value(beta).value(static_cast<cl_int>(read_c)).value(sa).value(sb);
  return args.error == CL_SUCCESS ? launch(stream, k, batch * g.M * g.N) : KGB_ERR_INVALID;
}

// The plain kernel on a strided batch (rank-3 views [rows, cols, batch]).
template <class Scal, class Real>
int plain_strided(kgb_stream stream, const std::string& source, int transa, int transb, Scal alpha, const kgb_tensor* A,
                  const kgb_tensor* B, Scal beta, kgb_tensor* C, bool alpha_zero, bool read_c, Real sa, Real sb) {
  BatchOperand a, b, c;
  if (!strided_operand(stream, A, &a) || !strided_operand(stream, B, &b) || !strided_operand(stream, C, &c))
    return KGB_ERR_INVALID;
  return run_gemm_batch(stream, source, a, b, c, false, C->sizes[2], gemm_geometry(transa, transb, A, B, C), alpha, beta,
                        alpha_zero, read_c, sa, sb);
}

// The plain kernel on a batch of tensor lists (pointer arrays).
template <class Scal, class Real>
int plain_listed(kgb_stream stream, const std::string& source, int transa, int transb, Scal alpha,
                 const kgb_tensor_list* A, const kgb_tensor_list* B, Scal beta, kgb_tensor_list* C, bool alpha_zero,
                 bool read_c, Real sa, Real sb) {
  if (C->count == 0) return KGB_OK;
  BatchOperand a, b, c;
  if (!list_operand(stream, A, &a) || !list_operand(stream, B, &b) || !list_operand(stream, C, &c)) return KGB_ERR_INVALID;
  return run_gemm_batch(stream, source, a, b, c, true, C->count, gemm_geometry(transa, transb, A->items[0], B->items[0], C->items[0]),
                        alpha, beta, alpha_zero, read_c, sa, sb);
}

// A view as CLBlast takes it: column-major (unit row stride) and its leading
// dimension, or 0 when it is not.
inline size_t clblast_ld(const kgb_tensor* x) {
  if (x->strides[0] != 1 && x->sizes[0] > 1) return 0;
  return static_cast<size_t>(x->sizes[1] <= 1 ? std::max<int64_t>(1, x->sizes[0]) : x->strides[1]);
}

// Host offsets of every item of a list inside the list's one buffer, or an
// empty vector when the items are not column-major with the first item's ld.
inline std::vector<size_t> clblast_list_offsets(kgb_stream stream, const kgb_tensor_list* list, cl_mem storage) {
  std::vector<size_t> offsets;
  const size_t ld = clblast_ld(list->items[0]);
  for (int64_t i = 0; i < list->count; ++i) {
    const kgb_tensor* t = list->items[i];
    cl_mem buffer = nullptr;
    cl_long offset = 0;
    if (ld == 0 || clblast_ld(t) != ld || kgb_cl_tensor_buffer(stream, t, &buffer, &offset) != CL_SUCCESS || buffer != storage)
      return {};
    offsets.push_back(static_cast<size_t>(offset));
  }
  return offsets;
}

// The buffers and element offsets of three views, as CLBlast takes them.
struct ViewBuffers {
  cl_mem a = nullptr, b = nullptr, c = nullptr;
  cl_long ao = 0, bo = 0, co = 0;
};

inline bool view_buffers(kgb_stream stream, const kgb_tensor* A, const kgb_tensor* B, const kgb_tensor* C, ViewBuffers* out) {
  return kgb_cl_tensor_buffer(stream, A, &out->a, &out->ao) == CL_SUCCESS &&
         kgb_cl_tensor_buffer(stream, B, &out->b, &out->bo) == CL_SUCCESS &&
         kgb_cl_tensor_buffer(stream, C, &out->c, &out->co) == CL_SUCCESS;
}

#ifdef KGB_HAVE_CLBLAST
inline clblast::Transpose clblast_op(int t) {
  return t == 0 ? clblast::Transpose::kNo : t == 1 ? clblast::Transpose::kYes : clblast::Transpose::kConjugate;
}

// CLBlast's GemmStridedBatched<T> on rank-3 views; nullopt when the call
// does not suit CLBlast (k == 0, which it rejects; alpha == 0, which must not
// read A or B; a layout that is not column-major): run the plain kernel then.
template <class T>
std::optional<clblast::StatusCode> clblast_strided(kgb_stream stream, int transa, int transb, T alpha, bool alpha_zero,
                                                   const kgb_tensor* A, const kgb_tensor* B, T beta, kgb_tensor* C) {
  const size_t batch = static_cast<size_t>(C->sizes[2]), m = static_cast<size_t>(C->sizes[0]), n = static_cast<size_t>(C->sizes[1]);
  const size_t k = static_cast<size_t>(transa ? A->sizes[0] : A->sizes[1]);
  if (batch == 0 || m == 0 || n == 0) return clblast::StatusCode::kSuccess;
  const size_t lda = clblast_ld(A), ldb = clblast_ld(B), ldc = clblast_ld(C);
  if (k == 0 || alpha_zero || lda == 0 || ldb == 0 || ldc == 0) return std::nullopt;
  ViewBuffers v;
  if (!view_buffers(stream, A, B, C, &v)) return clblast::StatusCode::kInvalidMemObject;
  // The batch stride of a single item is irrelevant; CLBlast still checks it.
  auto stride = [&](const kgb_tensor* x, size_t ld) {
    return batch > 1 ? static_cast<size_t>(x->strides[2]) : ld * static_cast<size_t>(std::max<int64_t>(1, x->sizes[1]));
  };
  cl_command_queue queue = kgb_cl_get_queue(stream);
  return clblast::GemmStridedBatched<T>(clblast::Layout::kColMajor, clblast_op(transa), clblast_op(transb), m, n, k, alpha, v.a,
                                        static_cast<size_t>(v.ao), lda, stride(A, lda), v.b, static_cast<size_t>(v.bo), ldb,
                                        stride(B, ldb), beta, v.c, static_cast<size_t>(v.co), ldc, stride(C, ldc), batch, &queue,
                                        nullptr);
}

// CLBlast's GemmBatched<T> on tensor lists (one buffer per list, an offset
// per item); nullopt as for clblast_strided, or when the items of a list do
// not share one column-major leading dimension.
template <class T>
std::optional<clblast::StatusCode> clblast_listed(kgb_stream stream, int transa, int transb, T alpha, bool alpha_zero,
                                                  const kgb_tensor_list* A, const kgb_tensor_list* B, T beta,
                                                  kgb_tensor_list* C) {
  const size_t batch = static_cast<size_t>(C->count);
  if (batch == 0) return clblast::StatusCode::kSuccess;
  const kgb_tensor* a0 = A->items[0];
  const kgb_tensor* b0 = B->items[0];
  const kgb_tensor* c0 = C->items[0];
  const size_t m = static_cast<size_t>(c0->sizes[0]), n = static_cast<size_t>(c0->sizes[1]);
  const size_t k = static_cast<size_t>(transa ? a0->sizes[0] : a0->sizes[1]);
  if (m == 0 || n == 0) return clblast::StatusCode::kSuccess;
  if (k == 0 || alpha_zero) return std::nullopt;
  cl_mem ab = nullptr, bb = nullptr, cb = nullptr, unused = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, A, &ab, &unused) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, B, &bb, &unused) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, C, &cb, &unused) != CL_SUCCESS)
    return clblast::StatusCode::kInvalidMemObject;
  const auto ao = clblast_list_offsets(stream, A, ab), bo = clblast_list_offsets(stream, B, bb);
  const auto co = clblast_list_offsets(stream, C, cb);
  if (ao.empty() || bo.empty() || co.empty()) return std::nullopt;
  const std::vector<T> alphas(batch, alpha), betas(batch, beta);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  return clblast::GemmBatched<T>(clblast::Layout::kColMajor, clblast_op(transa), clblast_op(transb), m, n, k, alphas.data(), ab,
                                 ao.data(), clblast_ld(a0), bb, bo.data(), clblast_ld(b0), betas.data(), cb, co.data(),
                                 clblast_ld(c0), batch, &queue, nullptr);
}
#endif

}  // namespace kgb::opencl::plain
