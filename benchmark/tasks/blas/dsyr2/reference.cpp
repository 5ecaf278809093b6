// Reference for blas/dsyr2: A := alpha * (x * y^T + y * x^T) + A on the
// `uplo` triangle of the column-major view only, in double; the other
// triangle (NaN from A's generator) keeps its values, alpha == 0 returns
// before reading x or y. x's generator puts NaN and infinities into x (a
// quarter of it when alpha == 0).
#include "../level2_reference.h"

namespace {

void dsyr2_reference(kgb::RefArgs& args) { kgb::level2_reference::syr2(args, "blas/dsyr2"); }

}  // namespace

KGB_REGISTER_REFERENCE("blas/dsyr2", dsyr2_reference);
KGB_REGISTER_GENERATOR("blas/dsyr2/x", kgb::level2_reference::vector_with_specials);
KGB_REGISTER_GENERATOR("blas/dsyr2/A", kgb::level2_reference::poisoned_triangle);
