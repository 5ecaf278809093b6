// Reference for aten/clone (memory_format=preserve): the values of self, bit
// for bit, in out's layout. The case gives out ATen's preserve layout (self's
// strides when self is non-overlapping and dense, else row-major); a case
// that contradicts the rule is a task bug.
#include <stdexcept>

#include "../layout_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void clone_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (self.numel() > 1) {
    const bool dense = kgb::layout::is_non_overlapping_and_dense(self.sizes(), self.strides());
    const bool like_self = out.strides() == self.strides();
    const bool row_major = kgb::layout::is_contiguous(out.sizes(), out.strides());
    if (dense ? !like_self : !row_major) throw std::runtime_error("aten/clone: the case's out layout is not ATen's preserve layout");
  }
  kgb::layout::copy_bits(self, out);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/clone", clone_reference);
