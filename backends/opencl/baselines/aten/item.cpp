// aten/item, plain OpenCL baseline: the element read back and widened into
// PyTorch's Scalar category (scalar_read.h).
#include "scalar_read.h"
#include "kgb_entries/aten/item.h"

namespace kgb::opencl::plain {
KGB_BASELINE(aten_item, kKind, read_scalar);
}  // namespace kgb::opencl::plain
