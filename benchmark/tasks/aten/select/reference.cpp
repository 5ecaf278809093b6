// Reference for aten/select (select.int): the view ATen returns, as
// metadata: dim and index wrapped, the dim dropped, the storage offset moved
// to the selected position along it.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void select_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const int64_t rank = self.rank();
  if (rank == 0) throw std::runtime_error("aten/select: a rank-0 self");
  int64_t dim = args.int_scalar("dim"), index = args.int_scalar("index");
  if (dim < -rank || dim >= rank) throw std::runtime_error("aten/select: dim " + std::to_string(dim) + " out of range");
  if (dim < 0) dim += rank;
  const auto d = static_cast<size_t>(dim);
  const int64_t size = self.sizes()[d];
  if (index < -size || index >= size) throw std::runtime_error("aten/select: index " + std::to_string(index) + " out of range");
  if (index < 0) index += size;
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  const int64_t offset = self.offset() + index * strides[d];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  if (sizes != args.tensor("out").sizes()) throw std::runtime_error("aten/select: the case's out shape differs from the result's");
  args.set_view("out", sizes, strides, offset);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/select", select_reference);
