// aten/narrow and narrow.Tensor, plain OpenCL baseline: ATen's narrow
// geometry written out (a view: metadata only, no kernel). narrow.Tensor
// reads its 0-dim start tensor with one blocking read. The task is untimed;
// the baseline exists so that every platform can run every entry.
#include "../plain_common.h"
#include "kgb_entries/aten/narrow.h"

namespace kgb::opencl::plain {
namespace {

int narrow(const kgb_tensor* self, int64_t dim, int64_t start, int64_t length, kgb_tensor* out, kgb_stream /*stream*/) {
  const int32_t rank = self->rank;
  if (rank == 0 || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  dim = normalise_dim(dim, rank);
  const int64_t size = self->sizes[dim];
  if (start < -size || start > size) return KGB_ERR_INVALID;  // start == size: an empty view at the end
  if (start < 0) start += size;
  if (length < 0 || start + length > size) return KGB_ERR_INVALID;
  kgb_tensor view = *self;  // same rank, sizes and strides, self's flags
  view.dtype = out->dtype;
  view.reserved = out->reserved;
  view.sizes[dim] = length;
  view.data = static_cast<char*>(self->data) + start * self->strides[dim] * kgb_dtype_size(self->dtype);
  view.storage_offset = self->storage_offset + start * self->strides[dim];
  *out = view;
  return KGB_OK;
}

int narrow_tensor(const kgb_tensor* self, int64_t dim, const kgb_tensor* start, int64_t length, kgb_tensor* out,
                  kgb_stream stream) {
  if (start->rank != 0 || start->dtype != KGB_I64) return KGB_ERR_INVALID;
  cl_mem buffer = nullptr;
  cl_long offset = 0, value = 0;
  if (kgb_cl_tensor_buffer(stream, start, &buffer, &offset) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (clEnqueueReadBuffer(kgb_cl_get_queue(stream), buffer, CL_TRUE, static_cast<size_t>(offset) * sizeof value, sizeof value,
                          &value, 0, nullptr, nullptr) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  return narrow(self, dim, value, length, out, stream);
}

}  // namespace
KGB_BASELINE(aten_narrow, kKind, narrow);
KGB_BASELINE(aten_narrow_Tensor, kKind, narrow_tensor);
}  // namespace kgb::opencl::plain
