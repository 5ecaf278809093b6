/* kgb_opencl.h: what an OpenCL candidate's host launcher builds on.
 *
 * An OpenCL candidate is one C++ source file: the OpenCL C program embedded as
 * a string literal, and the task's entry point that builds it with these
 * helpers, sets the kernel arguments and enqueues the kernels on the harness
 * queue. On OpenCL platforms the entry's `kgb_stream` argument is a
 * `kgb_cl_context*`; pass it to every helper.
 *
 *   static const char kSource[] = R"CLC(
 *     __kernel void scale(__global const float* x, long x_off,
 *                         __global float* y, long y_off, float a, long n) {
 *       long i = get_global_id(0);
 *       if (i < n) y[y_off + i] = a * x[x_off + i];
 *     })CLC";
 *
 *   cl_kernel k;
 *   if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "scale", &k)) return KGB_ERR_INVALID;
 *   kgb_cl_set_tensor_arg(stream, k, 0, x);   // arguments 0 (buffer) and 1 (element offset)
 *   kgb_cl_set_tensor_arg(stream, k, 2, y);   // arguments 2 and 3
 *   ...
 *   size_t global = ...;
 *   return kgb_cl_enqueue(stream, k, 1, &global, NULL);
 *
 * Memory. A tensor's `data` is NOT a host pointer and must never be
 * dereferenced on the host: it names a place inside an OpenCL buffer. Use
 * kgb_cl_tensor_buffer / kgb_cl_set_tensor_arg to get the buffer and the
 * offset (in elements) of element [0, ..., 0]; the offset is not zero in
 * general, so kernels must add it. Temporary buffers may be created with
 * clCreateBuffer on kgb_cl_get_context(stream) and released before returning.
 *
 * Rules the harness checks: work goes on the harness queue only (creating
 * queues or contexts is rejected by the lint); every kernel enqueue is counted
 * (a call that enqueues no kernel for a non-empty output is rejected as
 * `no-device-work`); timing uses profiling events of the enqueued commands and
 * the host wall time until clFinish on the harness queue.
 *
 * Programs are built once per context for each (source, options) pair and kept
 * for the life of the process; kernels are kept per (program, name). A build
 * failure prints the compiler's log to stderr as
 * `candidate.cpp:LINE:COL: error: message` lines (lines of the launcher file
 * when the program text is found in it verbatim, `candidate.cl:LINE:COL`
 * relative to the program otherwise) and returns CL_BUILD_PROGRAM_FAILURE.
 *
 * Portability: the same source must run on every OpenCL platform (a CPU
 * device through PoCL, NVIDIA GPUs). OpenCL C 1.2 is the common language;
 * cl_khr_fp64 is present on both, cl_khr_fp16 is not guaranteed: read f16 and
 * bf16 tensors as ushort and convert in the kernel (vload_half/vstore_half are
 * core OpenCL C and work without the extension).
 *
 * Every function returns CL_SUCCESS (0) or an OpenCL error code. */
#ifndef KGB_OPENCL_H
#define KGB_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "kgb_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What kgb_stream points to on OpenCL platforms (opaque to candidates). */
typedef struct kgb_cl_context kgb_cl_context;

/* The harness's OpenCL objects. They belong to the harness: do not release
 * them, and do not create other queues. */
cl_context kgb_cl_get_context(kgb_stream stream);
cl_device_id kgb_cl_get_device(kgb_stream stream);
cl_command_queue kgb_cl_get_queue(kgb_stream stream);

/* Builds `source` with `options` (may be NULL) for the harness device, or
 * returns the program built earlier from the same pair. */
cl_int kgb_cl_build_program(kgb_stream stream, const char* source, const char* options, cl_program* program);

/* The kernel `name` of the program built from (source, options); built and
 * created on first use, then shared by later calls. Set every argument before
 * each enqueue (a kernel object keeps the arguments of the previous call). */
cl_int kgb_cl_get_kernel(kgb_stream stream, const char* source, const char* options, const char* name,
                         cl_kernel* kernel);

/* The buffer holding tensor `t`'s storage and the offset, in elements, of
 * t->data inside it. */
cl_int kgb_cl_tensor_buffer(kgb_stream stream, const kgb_tensor* t, cl_mem* buffer, cl_long* offset_elements);

/* Sets kernel argument `index` to t's buffer (a __global pointer) and argument
 * `index + 1` to its element offset (a `long`). */
cl_int kgb_cl_set_tensor_arg(kgb_stream stream, cl_kernel kernel, cl_uint index, const kgb_tensor* t);

/* The items of a tensor list share one buffer on OpenCL. Returns that buffer
 * (NULL when every item is None) and a harness-owned, read-only buffer of
 * max(count, 1) cl_long element offsets: items[i]->data inside the buffer, -1
 * for a None item. This is what an OpenCL kernel takes instead of an array of
 * pointers (as CLBlast's batched routines take one cl_mem and an offsets
 * array); each item's own sizes and strides are read from list->items[i] on
 * the host. Do not release either buffer. */
cl_int kgb_cl_tensor_list_buffers(kgb_stream stream, const kgb_tensor_list* list, cl_mem* storage, cl_mem* offsets);

/* Enqueues `kernel` over an N-dimensional range on the harness queue. `local`
 * may be NULL; when given, each global size must be a multiple of it. */
cl_int kgb_cl_enqueue(kgb_stream stream, cl_kernel kernel, cl_uint work_dim, const size_t* global_size,
                      const size_t* local_size);

/* Largest work-group size the device accepts for `kernel`. */
size_t kgb_cl_max_work_group_size(kgb_stream stream, cl_kernel kernel);

/* Device facts a launcher may tune on: CL_DEVICE_TYPE_CPU or _GPU, the local
 * memory size in bytes and whether doubles are supported. */
cl_device_type kgb_cl_device_type(kgb_stream stream);
cl_ulong kgb_cl_local_mem_size(kgb_stream stream);
int kgb_cl_has_fp64(kgb_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* KGB_OPENCL_H */
