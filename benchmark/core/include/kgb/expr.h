// Small arithmetic expressions used in specs (flops, bytes, tolerance
// reductions, distribution bounds, statistical moments).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kgb/result.h"
#include "kgb/tensor.h"

namespace kgb {

struct ExprContext {
  // Value of a plain identifier (dims, scalars, elem).
  std::function<std::optional<double>(std::string_view)> variable;
  // Tensor named in numel(), size(), rank(), mean(), meansq(); may be null.
  std::function<const HostTensor*(std::string_view)> tensor;
};

Result<double> evaluate_expression(std::string_view text, const ExprContext& context);

// Identifiers used in an expression (for spec validation), functions excluded.
std::vector<std::string> expression_identifiers(std::string_view text);

}  // namespace kgb
