/* kgb_half.h: 16-bit and 8-bit float load/store helpers for kernels.
 *
 * f16, bf16, f8e4m3fn and f8e5m2 tensors hold their bits in uint16_t / uint8_t
 * elements (see kgb_kernel.h). These helpers convert one element to and from
 * float:
 *
 *   float    kgb_f16_to_float(uint16_t)       uint16_t kgb_float_to_f16(float)
 *   float    kgb_bf16_to_float(uint16_t)      uint16_t kgb_float_to_bf16(float)
 *   float    kgb_f8e4m3fn_to_float(uint8_t)   uint8_t  kgb_float_to_f8e4m3fn(float)
 *                                             uint8_t  kgb_float_to_f8e4m3fn_sat(float)
 *   float    kgb_f8e5m2_to_float(uint8_t)     uint8_t  kgb_float_to_f8e5m2(float)
 *                                             uint8_t  kgb_float_to_f8e5m2_sat(float)
 *
 * Loads are exact. Stores round to nearest even and keep NaN (quiet, with its
 * sign) and infinities where the format has them. A value that rounds beyond
 * the largest finite one becomes, without _sat, infinity (f16, bf16, e5m2)
 * or NaN (e4m3fn, which has no infinity), as PyTorch's casts do; with _sat
 * it and infinities become the largest finite value (448 for e4m3fn, 57344
 * for e5m2), as CUDA's __NV_SATFINITE conversions and the OCP FP8 spec's
 * saturation mode do. The results are bit for bit those of the harness's
 * own conversions (checked on every bit pattern and on millions of floats).
 *
 * Plain C99, usable from C, C++ (CPU solutions, OpenMP loops: the bodies are
 * branch-free selects that vectorise), CUDA and HIP (__host__ __device__ under
 * nvcc, hipcc and clang). Everything is static inline and allocation-free.
 *
 * OpenCL C programs cannot include headers: KGB_CL_HALF_SOURCE is the same
 * functions as OpenCL C 1.2 source text (ushort/uchar bit manipulation, no
 * cl_khr_fp16), to put in front of the program string in the launcher:
 *
 *   static const char kSource[] = KGB_CL_HALF_SOURCE R"CLC( ...kernels... )CLC";
 *
 * Build logs of such a program are still mapped to the launcher's lines. */
#ifndef KGB_HALF_H
#define KGB_HALF_H

#include <stdint.h>
#include <string.h>

#if defined(__NVCC__)
#define KGB_HALF_FN static inline __host__ __device__
#elif defined(__HIP__) || defined(__CUDA__)
#define KGB_HALF_FN static inline __attribute__((host, device))
#else
#define KGB_HALF_FN static inline
#endif

/* Bit casts between float and uint32_t: memcpy (compiled to a register move)
 * on the host and in HIP device code, the intrinsics in CUDA device code. */
#if defined(__HIP_DEVICE_COMPILE__)
#define KGB_HALF_MEMCPY_ __builtin_memcpy
#else
#define KGB_HALF_MEMCPY_ memcpy
#endif
KGB_HALF_FN float kgb_half_as_float_(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  KGB_HALF_MEMCPY_(&f, &u, sizeof f);
  return f;
#endif
}
KGB_HALF_FN uint32_t kgb_half_as_uint_(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  KGB_HALF_MEMCPY_(&u, &f, sizeof u);
  return u;
#endif
}

/* The functions, once for C and OpenCL C: FN is the qualifier, U8/U16/U32 the
 * unsigned types, AS_FLOAT/AS_UINT the bit casts. No other macro may appear in
 * the body (KGB_CL_HALF_SOURCE is its text after substitution). The float
 * additions in the subnormal paths let the FPU round at the target's smallest
 * step: adding 2^k (whose ulp is that step) to a magnitude below it rounds the
 * sum to nearest even, and the low bits of the sum are the result. Their
 * results are normal floats, so flush-to-zero modes do not change them. */
#define KGB_HALF_DEFINE(FN, U8, U16, U32, AS_FLOAT, AS_UINT)                                             \
  /* c (0 or 1) ? a : b on bits. A float result chosen by ?: may be computed only on its branch, which */ \
  /* GCC (with its default -ftrapping-math) will not speculate, and the loop stays scalar. */           \
  FN U32 kgb_half_select_(U32 c, U32 a, U32 b) { return (a & (0u - c)) | (b & (c - 1u)); }             \
  FN float kgb_f16_to_float(U16 h) {                                                                    \
    U32 sign = ((U32)h & 0x8000u) << 16;                                                                \
    U32 em = (U32)h & 0x7FFFu;                                                                          \
    U32 normal = (em << 13) + 0x38000000u;                        /* exponent bias 15 -> 127 */         \
    U32 special = (em << 13) | 0x7F800000u | (em > 0x7C00u ? 0x00400000u : 0u); /* Inf, quiet NaN */    \
    U32 subnormal = AS_UINT((float)em * 5.9604644775390625e-8f);  /* em * 2^-24, exact */               \
    U32 big = em >= 0x7C00u ? special : normal;                                                         \
    return AS_FLOAT(sign | kgb_half_select_((U32)(em < 0x0400u), subnormal, big));                      \
  }                                                                                                     \
  FN U16 kgb_float_to_f16(float f) {                                                                    \
    U32 x = AS_UINT(f);                                                                                 \
    U32 sign = (x >> 16) & 0x8000u;                                                                     \
    U32 ax = x & 0x7FFFFFFFu;                                                                           \
    U32 normal = (ax - 0x38000000u + 0xFFFu + ((ax >> 13) & 1u)) >> 13; /* rebias, round on bit 13 */   \
    U32 subnormal = AS_UINT(AS_FLOAT(ax) + 0.5f) - 0x3F000000u;         /* below 2^-14: steps of 2^-24 */ \
    U32 qnan = 0x7E00u | ((ax >> 13) & 0x3FFu);                                                          \
    U32 big = ax > 0x7F800000u ? qnan : ax >= 0x477FF000u ? 0x7C00u : normal; /* 65520 rounds to Inf */  \
    return (U16)(sign | kgb_half_select_((U32)(ax < 0x38800000u), subnormal, big));                     \
  }                                                                                                     \
  FN float kgb_bf16_to_float(U16 b) { return AS_FLOAT((U32)b << 16); }                                  \
  FN U16 kgb_float_to_bf16(float f) { /* narrowed before the select: strided stores stay cheap */       \
    U32 x = AS_UINT(f);                                                                                 \
    U16 rounded = (U16)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16); /* Inf stays Inf, overflow is Inf */   \
    U16 quiet = (U16)((x >> 16) | 0x40u);                                                               \
    return (x & 0x7FFFFFFFu) > 0x7F800000u ? quiet : rounded;                                           \
  }                                                                                                     \
  FN float kgb_f8e4m3fn_to_float(U8 b) {                                                                \
    U32 sign = ((U32)b & 0x80u) << 24;                                                                  \
    U32 em = (U32)b & 0x7Fu;                                                                            \
    U32 normal = em == 0x7Fu ? 0x7FC00000u : (em << 20) + 0x3C000000u; /* NaN; exponent bias 7 -> 127 */ \
    U32 subnormal = AS_UINT((float)em * 0.001953125f);                 /* em * 2^-9, exact */           \
    return AS_FLOAT(sign | kgb_half_select_((U32)(em < 0x08u), subnormal, normal));                     \
  }                                                                                                     \
  FN U32 kgb_f8e4m3fn_magnitude_(U32 ax) { /* finite |x| <= 464, rounded to nearest even */            \
    U32 normal = (ax - 0x3C000000u + 0x7FFFFu + ((ax >> 20) & 1u)) >> 20;                              \
    U32 subnormal = AS_UINT(AS_FLOAT(ax) + 16384.0f) - 0x46800000u; /* below 2^-6: steps of 2^-9 */     \
    return kgb_half_select_((U32)(ax < 0x3C800000u), subnormal, normal);                                \
  }                                                                                                     \
  FN U8 kgb_float_to_f8e4m3fn(float f) {                                                                \
    U32 x = AS_UINT(f);                                                                                 \
    U32 ax = x & 0x7FFFFFFFu;                                                                           \
    /* above 464 (halfway to 480, which would be the NaN code) rounds past 448: NaN */                 \
    U32 m = ax > 0x43E80000u ? 0x7Fu : kgb_f8e4m3fn_magnitude_(ax);                                     \
    return (U8)(((x >> 24) & 0x80u) | m);                                                               \
  }                                                                                                     \
  FN U8 kgb_float_to_f8e4m3fn_sat(float f) {                                                            \
    U32 x = AS_UINT(f);                                                                                 \
    U32 ax = x & 0x7FFFFFFFu;                                                                           \
    U32 m = ax > 0x7F800000u ? 0x7Fu : ax > 0x43E80000u ? 0x7Eu : kgb_f8e4m3fn_magnitude_(ax);          \
    return (U8)(((x >> 24) & 0x80u) | m);                                                               \
  }                                                                                                     \
  FN float kgb_f8e5m2_to_float(U8 b) { return kgb_f16_to_float((U16)((U32)b << 8)); } /* f16's top byte */ \
  FN U32 kgb_f8e5m2_magnitude_(U32 ax) { /* finite |x| < 61440, rounded to nearest even */              \
    U32 normal = (ax - 0x38000000u + 0xFFFFFu + ((ax >> 21) & 1u)) >> 21;                              \
    U32 subnormal = AS_UINT(AS_FLOAT(ax) + 128.0f) - 0x43000000u; /* below 2^-14: steps of 2^-16 */     \
    return kgb_half_select_((U32)(ax < 0x38800000u), subnormal, normal);                                \
  }                                                                                                     \
  FN U8 kgb_float_to_f8e5m2(float f) {                                                                  \
    U32 x = AS_UINT(f);                                                                                 \
    U32 ax = x & 0x7FFFFFFFu;                                                                           \
    /* 61440 (halfway from 57344 to 65536) and above round to Inf */                                    \
    U32 m = ax > 0x7F800000u ? 0x7Fu : ax >= 0x47700000u ? 0x7Cu : kgb_f8e5m2_magnitude_(ax);           \
    return (U8)(((x >> 24) & 0x80u) | m);                                                               \
  }                                                                                                     \
  FN U8 kgb_float_to_f8e5m2_sat(float f) {                                                              \
    U32 x = AS_UINT(f);                                                                                 \
    U32 ax = x & 0x7FFFFFFFu;                                                                           \
    U32 m = ax > 0x7F800000u ? 0x7Fu : ax >= 0x47700000u ? 0x7Bu : kgb_f8e5m2_magnitude_(ax);           \
    return (U8)(((x >> 24) & 0x80u) | m);                                                               \
  }

KGB_HALF_DEFINE(KGB_HALF_FN, uint8_t, uint16_t, uint32_t, kgb_half_as_float_, kgb_half_as_uint_)

/* The OpenCL C text: the body above with OpenCL's types and bit casts. */
#define KGB_HALF_STRINGIFY_(...) #__VA_ARGS__
#define KGB_HALF_STRINGIFY(...) KGB_HALF_STRINGIFY_(__VA_ARGS__)
#define KGB_CL_HALF_SOURCE KGB_HALF_STRINGIFY(KGB_HALF_DEFINE(, uchar, ushort, uint, as_float, as_uint)) "\n"

#endif /* KGB_HALF_H */
