// Wrong (OpenCL): enqueues a non-blocking read of the element straight into
// the result and returns without waiting for it. The ABI says a host scalar
// result is complete when the entry returns; here it is still the harness's
// poison then, and only a later clFinish would make it right (expected: value
// mismatches). Only real-valued integer and float dtypes of 8 bytes are read
// into place; the others do the same with their own size.
#include <stdint.h>
#include <string.h>

#include "kgb_opencl.h"

extern "C" int kgb_aten_item(const kgb_tensor* self, kgb_scalar* out, kgb_stream stream) {
  const int32_t elem = kgb_dtype_size(self->dtype);
  cl_mem buffer = NULL;
  cl_long offset = 0;
  if (elem == 0 || kgb_cl_tensor_buffer(stream, self, &buffer, &offset) != CL_SUCCESS) return KGB_ERR_INVALID;
  switch (self->dtype) {
    case KGB_BOOL: out->dtype = KGB_BOOL; break;
    case KGB_F16: case KGB_BF16: case KGB_F32: case KGB_F64: out->dtype = KGB_F64; break;
    case KGB_C64: case KGB_C128: out->dtype = KGB_C128; break;
    default: out->dtype = KGB_I64;
  }
  out->reserved = 0;
  // The bug: CL_FALSE and no clFinish. (Bytes land unconverted, which would
  // be wrong too for narrow dtypes; the race is what this candidate is about.)
  const cl_int err = clEnqueueReadBuffer(kgb_cl_get_queue(stream), buffer, CL_FALSE, static_cast<size_t>(offset) * elem,
                                         static_cast<size_t>(elem), &out->v, 0, NULL, NULL);
  return err == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
