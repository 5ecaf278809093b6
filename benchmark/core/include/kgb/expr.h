// Small arithmetic expressions used in specs (shapes, counts, flops, bytes,
// tolerance reductions, distribution bounds, statistical moments):
// + - * / and parentheses over numbers, dims and scalars; numel size rank mean
// meansq of tensors; min max log2 sqrt floor ceil cdiv mod if; at len prod sum
// of int lists; count of tensor lists; elem(A).
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
  // int_list parameter named in at(), len(), prod(), sum(); may be null.
  std::function<const std::vector<int64_t>*(std::string_view)> int_list;
  // Item count of a tensor_list parameter, for count(); may be null.
  std::function<std::optional<int64_t>(std::string_view)> list_count;
  // Bytes per element of a type variable or a tensor parameter, for elem(A); may be null.
  std::function<std::optional<int64_t>(std::string_view)> element_size;
};

Result<double> evaluate_expression(std::string_view text, const ExprContext& context);

// Identifiers used in an expression (for spec validation), functions excluded.
std::vector<std::string> expression_identifiers(std::string_view text);

}  // namespace kgb
