// Shared pieces of the plain OpenCL baselines (written here): straightforward
// kernels, one work-item per output element or per slice, no tiling and no
// local memory. They are the reference point a candidate's speedup is measured
// against on OpenCL platforms where no vendor library covers the task.
#pragma once

#include <cstddef>
#include <string>

#include "kgb_baseline.h"
#include "kgb_opencl.h"

namespace kgb::opencl::plain {

constexpr const char* kKind = "plain (written here)";

// OpenCL C prelude: element type S, compute type C, LOAD/STORE converting
// between them (f16/bf16 are ushort data), selected with -DKGB_DT=<kgb_dtype>.
inline const char* dtype_prelude() {
  return R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
float h2f(ushort h) {
  uint sign = (uint)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) return as_float(sign | 0x7f800000u | (m << 13));
  if (e != 0) return as_float(sign | ((e + 112u) << 23) | (m << 13));
  float f = (float)m * 5.9604644775390625e-8f;
  return sign ? -f : f;
}
ushort f2h(float f) {
  uint x = as_uint(f), ax = x & 0x7fffffffu;
  ushort sign = (ushort)((x >> 16) & 0x8000u);
  if (ax > 0x7f800000u) return sign | 0x7e00;
  if (ax >= 0x477ff000u) return sign | 0x7c00;
  if (ax >= 0x38800000u) return sign | (ushort)((ax + 0xfffu + ((ax >> 13) & 1u) - 0x38000000u) >> 13);
  return sign | (ushort)(as_uint(as_float(ax) + 0.5f) - 0x3f000000u);
}
float bf2f(ushort b) { return as_float((uint)b << 16); }
ushort f2bf(float f) {
  uint x = as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);
  return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
#if KGB_DT == 6
typedef float S; typedef float C;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 7
typedef double S; typedef double C;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef float C;
#define LOAD(v) h2f(v)
#define STORE(v) f2h(v)
#elif KGB_DT == 5
typedef ushort S; typedef float C;
#define LOAD(v) bf2f(v)
#define STORE(v) f2bf(v)
#elif KGB_DT == 2
typedef int S; typedef long C;
#define LOAD(v) ((long)(v))
#define STORE(v) ((int)(v))
#elif KGB_DT == 3
typedef long S; typedef long C;
#define LOAD(v) (v)
#define STORE(v) (v)
#endif
// Up to 8 dimensions: sizes and the strides of up to four tensors.
typedef struct { long size[8]; long s0[8]; long s1[8]; long s2[8]; long s3[8]; } Dims;
// Offsets of linear (row-major) index i in the four tensors.
void offsets(const Dims* g, int rank, long i, long* o0, long* o1, long* o2, long* o3) {
  long a = 0, b = 0, c = 0, d = 0;
  for (int k = rank - 1; k >= 0; --k) {
    long q = i / g->size[k], r = i - q * g->size[k];
    i = q;
    a += r * g->s0[k]; b += r * g->s1[k]; c += r * g->s2[k]; d += r * g->s3[k];
  }
  *o0 = a; *o1 = b; *o2 = c; *o3 = d;
}
)CLC";
}

// The same layout as the OpenCL C struct Dims.
struct Dims {
  cl_long size[8] = {}, s0[8] = {}, s1[8] = {}, s2[8] = {}, s3[8] = {};
  int rank = 0;
  cl_long count = 1;  // product of the sizes
  void add(cl_long size_, cl_long a = 0, cl_long b = 0, cl_long c = 0, cl_long d = 0) {
    size[rank] = size_;
    s0[rank] = a;
    s1[rank] = b;
    s2[rank] = c;
    s3[rank] = d;
    count *= size_;
    ++rank;
  }
};
static_assert(sizeof(cl_long) * 40 == offsetof(Dims, rank), "Dims must match the OpenCL C struct");

// -cl-std=CL1.2 -DKGB_DT=<dtype>, or nullptr for a dtype not in `allowed`.
inline const char* dtype_options(int32_t dtype) {
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

// Kernel arguments in order; a tensor takes two (buffer, element offset),
// Dims one (the struct, by value).
struct Args {
  kgb_stream stream;
  cl_kernel kernel;
  cl_uint next = 0;
  cl_int error = CL_SUCCESS;
  template <typename T>
  Args& value(const T& v) {
    if (error == CL_SUCCESS) error = clSetKernelArg(kernel, next, sizeof v, &v);
    ++next;
    return *this;
  }
  Args& dims(const Dims& d) {
    if (error == CL_SUCCESS) error = clSetKernelArg(kernel, next, sizeof(cl_long) * 40, &d);
    ++next;
    return value(static_cast<cl_int>(d.rank));
  }
  Args& tensor(const kgb_tensor* t) {
    if (error == CL_SUCCESS) error = kgb_cl_set_tensor_arg(stream, kernel, next, t);
    next += 2;
    return *this;
  }
};

// Enqueues `n` work-items (rounded up to groups of 64).
inline int launch(kgb_stream stream, cl_kernel kernel, cl_long n) {
  if (n <= 0) return KGB_OK;
  const size_t local = 64;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, kernel, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

inline cl_kernel kernel(kgb_stream stream, const std::string& source, const char* options, const char* name) {
  cl_kernel k = nullptr;
  if (!options || kgb_cl_get_kernel(stream, source.c_str(), options, name, &k) != CL_SUCCESS) return nullptr;
  return k;
}

// OpenCL C prelude for bit-for-bit copies: E is an unsigned word of ELEM
// bytes (1, 2, 4 or 8), selected with word_options.
inline const char* word_prelude() {
  return R"CLC(
#if ELEM == 1
typedef uchar E;
#elif ELEM == 2
typedef ushort E;
#elif ELEM == 4
typedef uint E;
#else
typedef ulong E;
#endif
)CLC";
}

// -cl-std=CL1.2 -DELEM=<bytes of dtype>, or nullptr for an unknown dtype.
inline const char* word_options(int32_t dtype) {
  switch (kgb_dtype_size(dtype)) {
    case 1: return "-cl-std=CL1.2 -DELEM=1";
    case 2: return "-cl-std=CL1.2 -DELEM=2";
    case 4: return "-cl-std=CL1.2 -DELEM=4";
    case 8: return "-cl-std=CL1.2 -DELEM=8";
    default: return nullptr;
  }
}

inline int64_t normalise_dim(int64_t dim, int rank) {
  const int64_t nominal = rank == 0 ? 1 : rank;
  return dim < 0 ? dim + nominal : dim;
}

}  // namespace kgb::opencl::plain
