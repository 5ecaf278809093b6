// blas/sdot in OpenCL: result[0] = sum of x[i*incx] * y[i*incy].
// Two kernels in order on the harness queue: `partials` runs G work-groups of
// 256; each work-item sums a strided slice in float (float4 loads for
// unit-stride vectors), each group reduces in local memory to one float
// partial in a temporary buffer; `finish` (one group) adds the G partials in
// a fixed order and writes the result. Fixed order: deterministic.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#define WG 256
float group_sum(float v, __local float* s) {
  int l = get_local_id(0);
  s[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = WG / 2; width > 0; width >>= 1) {
    if (l < width) s[l] += s[l + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return s[0];
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void partials(long n, __global const float* x, long x_off, long incx, __global const float* y, long y_off, long incy,
              int unit, __global float* part) {
  __local float s[WG];
  const long stride = (long)get_global_size(0);
  long i = get_global_id(0);
  __global const float* xp = x + x_off;
  __global const float* yp = y + y_off;
  float acc = 0.0f;
  if (unit) {
    const long n4 = n / 4;
    for (long q = i; q < n4; q += stride) acc += dot(vload4(q, xp), vload4(q, yp));
    for (long t = 4 * n4 + i; t < n; t += stride) acc = fma(xp[t], yp[t], acc);
  } else {
    for (; i < n; i += stride) acc = fma(xp[i * incx], yp[i * incy], acc);
  }
  float total = group_sum(acc, s);
  if (get_local_id(0) == 0) part[get_group_id(0)] = total;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void finish(int groups, __global const float* part, __global float* result, long r_off) {
  __local float s[WG];
  float acc = 0.0f;
  for (int g = get_local_id(0); g < groups; g += WG) acc += part[g];
  float total = group_sum(acc, s);
  if (get_local_id(0) == 0) result[r_off] = total;
}
)CLC";

constexpr size_t kGroup = 256;

}  // namespace

extern "C" int kgb_blas_sdot(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || result->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const cl_long n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const cl_int unit = incx == 1 && incy == 1;
  // Enough groups to fill a GPU; a CPU device gets a few per core.
  const bool gpu = kgb_cl_device_type(stream) == CL_DEVICE_TYPE_GPU;
  const cl_long per_group = static_cast<cl_long>(kGroup) * 16;
  cl_long groups_l = (n + per_group - 1) / per_group;
  const cl_long cap = gpu ? 1024 : 64;
  const cl_int groups = static_cast<cl_int>(groups_l < 1 ? 1 : (groups_l > cap ? cap : groups_l));

  cl_kernel kp = nullptr, kf = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "partials", &kp) != CL_SUCCESS ||
      kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "finish", &kf) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = CL_SUCCESS;
  cl_mem part = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, sizeof(cl_float) * groups, nullptr, &err);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  err = clSetKernelArg(kp, 0, sizeof n, &n);
  err |= kgb_cl_set_tensor_arg(stream, kp, 1, x);  // arguments 1, 2
  err |= clSetKernelArg(kp, 3, sizeof incx, &incx);
  err |= kgb_cl_set_tensor_arg(stream, kp, 4, y);  // arguments 4, 5
  err |= clSetKernelArg(kp, 6, sizeof incy, &incy);
  err |= clSetKernelArg(kp, 7, sizeof unit, &unit);
  err |= clSetKernelArg(kp, 8, sizeof part, &part);
  err |= clSetKernelArg(kf, 0, sizeof groups, &groups);
  err |= clSetKernelArg(kf, 1, sizeof part, &part);
  err |= kgb_cl_set_tensor_arg(stream, kf, 2, result);  // arguments 2, 3
  const size_t global = static_cast<size_t>(groups) * kGroup;
  if (err == CL_SUCCESS) err = kgb_cl_enqueue(stream, kp, 1, &global, &kGroup);
  if (err == CL_SUCCESS) err = kgb_cl_enqueue(stream, kf, 1, &kGroup, &kGroup);
  clReleaseMemObject(part);  // released once the queued kernels are done with it
  return err == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
