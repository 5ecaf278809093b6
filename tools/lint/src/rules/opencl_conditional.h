// opencl-conditional: an OpenCL C program is preprocessed by the driver at run
// time (PoCL, NVIDIA), whose predefined macros lint cannot know and whose
// preprocessor it cannot run. Its directives may therefore name only the
// program's own macros (defined in the program or passed by the launcher as
// build options): a conditional naming a driver's name — reserved names
// (__x, _X), extension and version names (cl_*, CL_*, __opencl_c_*),
// FP_FAST_FMA*, the profile names and vendor names — or a program macro whose
// body reaches one, and a #define or #undef of such a name, is rejected. Then every branch depends only on what the
// candidate itself sets, and lint parses the same side the driver compiles
// for the program's defaults.
#pragma once

#include <string>

#include "findings.h"

namespace kgb::lint::detail {

// Scans `text` from `begin` (an embedded program, raw); findings are reported
// at line `first_line + (line in text from begin) - 1` of setup.file_name.
void scan_opencl_conditionals(const std::string& text, size_t begin, int first_line, const RuleSetup& setup,
                              FindingSink& sink);

// Why `name` is the driver's, or empty when it may be a program macro.
std::string driver_macro_family(const std::string& name);

}  // namespace kgb::lint::detail
