// Reference for aten/empty_strided: the fresh tensor ATen allocates, as a view of
// the harness's storage buffer: sizes = size, strides = stride, starting
// where the buffer starts. Its dtype must be the dtype argument, else
// f32, and its extent must fit the buffer (a case that breaks either is a
// task bug).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../fill_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void empty_strided_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& storage = args.tensor("storage");
  const std::vector<int64_t>& size = args.int_list("size");
  const std::vector<int64_t>& stride = args.int_list("stride");
  kgb::fill::expect_dtype(storage, args.has("dtype") ? kgb::fill::dtype_named(args.enum_name("dtype")) : kgb::DType::F32,
                          "aten/empty_strided");
  if (size.size() != stride.size()) throw std::runtime_error("aten/empty_strided: size and stride differ in length");
  int64_t extent = 1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] < 0 || stride[d] < 0) throw std::runtime_error("aten/empty_strided: negative size or stride");
    if (size[d] == 0) extent = 0;
  }
  if (extent > 0)
    for (size_t d = 0; d < size.size(); ++d) extent += (size[d] - 1) * stride[d];
  if (extent > storage.numel())
    throw std::runtime_error("aten/empty_strided: the result spans " + std::to_string(extent) + " elements, the buffer has " +
                             std::to_string(storage.numel()));
  args.set_view("out", size, stride, storage.offset());
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/empty_strided", empty_strided_reference);
