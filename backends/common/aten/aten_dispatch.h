// One ATen baseline for every ATen task: the operator named by the entry's
// upstream_name (and overload) called through libtorch's dispatcher with the
// entry's own arguments, matched to the operator schema by name. Outputs are
// written in place through the operator's out= variant when it has one;
// in-place operators write their inout argument; view operators answer with
// the view's metadata; item() with a host scalar. Used by the CPU baseline
// runner, the CUDA baseline library and the libtorch cross-check tests.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "kgb/wire.h"
#include "kgb_runner_abi.h"

namespace kgb::aten_dispatch {

at::ScalarType scalar_type_of(int32_t kgb_dtype);  // Undefined for dtypes libtorch lacks
int32_t kgb_dtype_of(at::ScalarType t);            // -1 when KGB has none

// A non-owning ATen tensor over a kgb_tensor on `device`, with the view's
// storage_offset (so views ATen makes of it count offsets from the same
// origin) and its conj/neg bits.
// Elements from the start of t's allocation through its view's last element
// (the storage_offset alone for an empty view).
int64_t storage_extent(const kgb_tensor* t);
at::Tensor view_of(const kgb_tensor* t, const at::Device& device);

struct CallResult {
  int status = KGB_OK;
  std::string message;   // why it failed, or how it was called ("aten::add.out")
};

// Calls the entry's operator. `device` says where the kgb tensors live; for
// CUDA the caller sets the device and stream guards.
CallResult call_operator(const wire::EntrySignature& entry, const kgb_arg* args, int32_t nargs, const at::Device& device);

}  // namespace kgb::aten_dispatch
