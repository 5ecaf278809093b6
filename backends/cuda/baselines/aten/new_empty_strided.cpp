// aten/new_empty_strided on CUDA: the result described over the harness's storage
// buffer as ATen lays a fresh tensor out (kgb_allocation_view.h); nothing is
// enqueued. The task is untimed; the generic libtorch call cannot take the
// buffer, which has no counterpart in ATen's schema.
#include "kgb_allocation_view.h"
#include "kgb_baseline.h"
#include "kgb_entries/aten/new_empty_strided.h"

namespace {

int allocate(const kgb_tensor* /*self*/, kgb_int_list size, kgb_int_list stride, const int* /*dtype*/,
                  const kgb_tensor* storage, kgb_tensor* out, kgb_stream /*stream*/) {
  return kgb::describe_allocation(size, stride, storage, out);
}

}  // namespace

KGB_BASELINE(aten_new_empty_strided, "plain (as ATen lays out a fresh tensor)", allocate);
