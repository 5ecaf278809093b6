// Pieces shared by the plain OpenCL baselines of the layout tasks that move
// elements bit for bit (stack, rot90, reshape): the program is built per
// element size, E being an unsigned type of that size, on top of the Dims
// and offsets() prelude of plain_common.h.
#pragma once

#include <string>

#include "../plain_common.h"

namespace kgb::opencl::plain {

// dtype_prelude() plus `E`, selected with -DELEM=<bytes>.
inline std::string bit_copy_prelude() {
  return std::string(dtype_prelude()) + R"CLC(
#if ELEM == 1
typedef uchar E;
#elif ELEM == 2
typedef ushort E;
#elif ELEM == 4
typedef uint E;
#elif ELEM == 8
typedef ulong E;
#else
typedef ulong2 E;
#endif
)CLC";
}

// Build options for an element size, or nullptr for an unsupported one.
inline const char* bit_copy_options(int32_t bytes) {
  switch (bytes) {
    case 1: return "-cl-std=CL1.2 -DELEM=1";
    case 2: return "-cl-std=CL1.2 -DELEM=2";
    case 4: return "-cl-std=CL1.2 -DELEM=4";
    case 8: return "-cl-std=CL1.2 -DELEM=8";
    case 16: return "-cl-std=CL1.2 -DELEM=16";
    default: return nullptr;
  }
}

}  // namespace kgb::opencl::plain
