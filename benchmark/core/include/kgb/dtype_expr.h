// Dtype expressions of spec format v2 (a tensor's "dtype" field): a dtype
// name, a type variable, or promote(A, B), result_type(p, q, ...), float(A),
// widen(A), real(A), complex(A), dtype(param), nested.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/result.h"

namespace kgb {

struct Task;
struct ScalarValue;

// Syntax and names of type variables / dtypes; parameter names inside
// dtype() and result_type() are returned for the caller to resolve.
Status validate_dtype_expression(const std::string& text, const Task& task);
std::vector<std::string> dtype_expression_params(const std::string& text);

}  // namespace kgb
