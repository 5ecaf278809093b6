// Numbers as task statements and messages print them.
#pragma once

#include <string>

namespace kgb {

// The shortest decimal text that reads back as the same double ("0.1", not
// "0.10000000000000001"); inf, -inf and nan for the special values.
std::string format_double(double value);

}  // namespace kgb
