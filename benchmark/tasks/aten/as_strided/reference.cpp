// Reference for aten/as_strided: the view ATen returns, as metadata. size
// and stride are taken as given; storage_offset counts from the start of
// self's allocation, None keeps self's. The view must lie inside self's
// allocation (ATen checks it against the storage): a case that leaves it is
// a task bug.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void as_strided_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const std::vector<int64_t>& size = args.int_list("size");
  const std::vector<int64_t>& stride = args.int_list("stride");
  if (size.size() != stride.size()) throw std::runtime_error("aten/as_strided: size and stride differ in length");
  const int64_t offset = args.has("storage_offset") ? args.int_scalar("storage_offset") : self.offset();
  if (offset < 0) throw std::runtime_error("aten/as_strided: negative storage_offset");
  int64_t last = offset, numel = 1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] < 0 || stride[d] < 0) throw std::runtime_error("aten/as_strided: negative size or stride");
    numel *= size[d];
    if (size[d] > 0) last += (size[d] - 1) * stride[d];
  }
  if (numel > 0 && last >= self.storage_elements())
    throw std::runtime_error("aten/as_strided: the view reaches element " + std::to_string(last) + " of an allocation of " +
                             std::to_string(self.storage_elements()));
  args.set_view("out", size, stride, offset);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/as_strided", as_strided_reference);
