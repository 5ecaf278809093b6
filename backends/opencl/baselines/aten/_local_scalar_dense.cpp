// aten/_local_scalar_dense, plain OpenCL baseline: the element read back and widened into
// PyTorch's Scalar category (scalar_read.h).
#include "scalar_read.h"
#include "kgb_entries/aten/_local_scalar_dense.h"

namespace kgb::opencl::plain {
KGB_BASELINE(aten__local_scalar_dense, kKind, read_scalar);
}  // namespace kgb::opencl::plain
