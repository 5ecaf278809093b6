// Reference for aten/narrow (default and .Tensor overloads): the view ATen
// returns, as metadata: dim and start wrapped (start == size allowed), then
// slice(dim, start, start + length) keeps the strides and moves the offset.
// The .Tensor overload's start is a 0-dim i64 tensor; its generator writes
// the case's value (dim S, or -S_from_end: dims cannot be negative).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void narrow_view(kgb::RefArgs& args, int64_t start) {
  const kgb::HostTensor& self = args.tensor("self");
  const int64_t rank = self.rank();
  if (rank == 0) throw std::runtime_error("aten/narrow: a rank-0 self");
  int64_t dim = args.int_scalar("dim");
  const int64_t length = args.int_scalar("length");
  if (dim < -rank || dim >= rank) throw std::runtime_error("aten/narrow: dim " + std::to_string(dim) + " out of range");
  if (dim < 0) dim += rank;
  const auto d = static_cast<size_t>(dim);
  const int64_t size = self.sizes()[d];
  if (start < -size || start > size) throw std::runtime_error("aten/narrow: start " + std::to_string(start) + " out of range");
  if (start < 0) start += size;
  if (length < 0 || start + length > size) throw std::runtime_error("aten/narrow: start + length exceeds the dim's size");
  std::vector<int64_t> sizes = self.sizes();
  sizes[d] = length;
  if (sizes != args.tensor("out").sizes()) throw std::runtime_error("aten/narrow: the case's out shape differs from the result's");
  args.set_view("out", sizes, self.strides(), self.offset() + start * self.strides()[d]);
}

void narrow_reference(kgb::RefArgs& args) { narrow_view(args, args.int_scalar("start")); }

void narrow_tensor_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& start = args.tensor("start");
  if (start.rank() != 0) throw std::runtime_error("aten/narrow.Tensor: start must be a 0-dim tensor");
  narrow_view(args, start.get_int(0));
}

void start_generator(kgb::GeneratorArgs& g) {
  auto s = g.dims.find("S");
  auto back = g.dims.find("S_from_end");
  if ((s == g.dims.end()) == (back == g.dims.end()))
    throw std::runtime_error("aten/narrow.Tensor: a case gives exactly one of the dims S and S_from_end");
  g.tensor.set_int(0, s != g.dims.end() ? s->second : -back->second);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/narrow", narrow_reference);
KGB_REGISTER_REFERENCE("aten/narrow.Tensor", narrow_tensor_reference);
KGB_REGISTER_GENERATOR("aten/narrow/start", start_generator);
