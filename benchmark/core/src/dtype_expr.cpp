#include "kgb/dtype_expr.h"

#include <cctype>
#include <memory>

#include "kgb/numerics.h"
#include "kgb/task.h"

namespace kgb {
namespace {

struct Node {
  std::string name;                 // a dtype, type variable, parameter, or the function
  bool call = false;
  std::vector<std::unique_ptr<Node>> args;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<std::unique_ptr<Node>> parse() {
    auto n = node();
    if (!n) return n;
    skip();
    if (pos_ != text_.size()) return fail("unexpected '" + std::string(text_.substr(pos_, 1)) + "'");
    return n;
  }

 private:
  Error fail(const std::string& what) const {
    return make_error("dtype.syntax", "in dtype expression \"" + std::string(text_) + "\" at offset " + std::to_string(pos_) + ": " + what);
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  Result<std::unique_ptr<Node>> node() {
    skip();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    if (pos_ == start) return fail("expected a dtype, a type variable or a function");
    auto n = std::make_unique<Node>();
    n->name = std::string(text_.substr(start, pos_ - start));
    skip();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      ++pos_;
      n->call = true;
      for (;;) {
        auto a = node();
        if (!a) return a;
        n->args.push_back(std::move(*a));
        skip();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ')') {
          ++pos_;
          break;
        }
        return fail("expected ',' or ')'");
      }
    }
    return n;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

bool is_type_variable(const Task& task, const std::string& name) {
  for (const auto& [v, values] : task.type_variables)
    if (v == name) return true;
  return false;
}

Status validate(const Node& n, const Task& task, const std::string& text) {
  auto bad = [&](const std::string& what) { return make_error("dtype.invalid", "in dtype expression \"" + text + "\": " + what); };
  if (!n.call) {
    if (parse_dtype(n.name) || is_type_variable(task, n.name)) return Ok{};
    return bad("'" + n.name + "' is neither a dtype name nor a type variable of the task");
  }
  if (n.name == "promote") {
    if (n.args.size() != 2) return bad("promote takes two dtypes");
  } else if (n.name == "float" || n.name == "widen" || n.name == "real" || n.name == "complex") {
    if (n.args.size() != 1) return bad(n.name + " takes one dtype");
  } else if (n.name == "dtype" || n.name == "result_type") {
    for (const auto& a : n.args)
      if (a->call) return bad(n.name + " takes parameter names");
    if (n.name == "dtype" && n.args.size() != 1) return bad("dtype takes one parameter name");
    return Ok{};  // parameter names are resolved against the entry's parameters later
  } else {
    return bad("unknown function '" + n.name + "' (promote, result_type, float, widen, real, complex, dtype)");
  }
  for (const auto& a : n.args)
    if (auto s = validate(*a, task, text); !s) return s;
  return Ok{};
}

void collect_params(const Node& n, std::vector<std::string>& out) {
  if (!n.call) return;
  if (n.name == "dtype" || n.name == "result_type") {
    for (const auto& a : n.args) out.push_back(a->name);
    return;
  }
  for (const auto& a : n.args) collect_params(*a, out);
}

struct Resolver {
  const Task& task;
  const DTypeBinding& binding;
  const std::map<std::string, ScalarValue>& scalars;
  const std::map<std::string, int>& ranks;
  const std::string& text;
  int depth = 0;

  Error bad(const std::string& what) const { return make_error("dtype.resolve", "dtype expression \"" + text + "\": " + what); }

  Result<DType> param_dtype(const std::string& name) {
    const Param* p = task.param(name);
    if (!p || (p->kind != ParamKind::Tensor && p->kind != ParamKind::TensorList)) return bad("no tensor parameter named '" + name + "'");
    if (++depth > 16) return bad("dtype expressions refer to each other in a cycle");
    auto parsed = Parser(p->dtype).parse();
    if (!parsed) return parsed.error();
    auto r = eval(**parsed);
    --depth;
    return r;
  }

  Result<DType> eval(const Node& n) {
    if (!n.call) {
      if (auto d = parse_dtype(n.name)) return *d;
      auto it = binding.find(n.name);
      if (it == binding.end()) return bad("type variable '" + n.name + "' is not bound in this case");
      return it->second;
    }
    if (n.name == "dtype") return param_dtype(n.args[0]->name);
    if (n.name == "result_type") {
      std::vector<Operand> ops;
      for (const auto& a : n.args) {
        const Param* p = task.param(a->name);
        if (!p) return bad("no parameter named '" + a->name + "'");
        if (p->kind == ParamKind::Scalar) {
          auto it = scalars.find(p->name);
          if (it == scalars.end() || it->second.none()) continue;  // None takes no part
          const ScalarValue& v = it->second;
          DType d = v.kind == ScalarValue::Kind::Bool      ? DType::Bool
                    : v.kind == ScalarValue::Kind::Float   ? DType::F64
                    : v.kind == ScalarValue::Kind::Complex ? DType::C128
                                                           : DType::I64;
          ops.push_back({d, OperandKind::Scalar});
          continue;
        }
        if (p->kind != ParamKind::Tensor) return bad("'" + a->name + "' is not a tensor or scalar");
        auto rank = ranks.find(p->name);
        if (rank == ranks.end()) continue;  // an optional tensor that is None
        auto d = param_dtype(p->name);
        if (!d) return d;
        ops.push_back({*d, rank->second == 0 ? OperandKind::ZeroDimTensor : OperandKind::Tensor});
      }
      return result_type(ops);
    }
    std::vector<DType> args;
    for (const auto& a : n.args) {
      auto d = eval(*a);
      if (!d) return d;
      args.push_back(*d);
    }
    if (n.name == "promote") {
      auto d = promote_types(args[0], args[1]);
      if (!d) return bad("PyTorch does not promote " + std::string(dtype_name(args[0])) + " with " + std::string(dtype_name(args[1])));
      return *d;
    }
    if (n.name == "float") return float_of(args[0]);
    if (n.name == "widen") return widen(args[0]);
    if (n.name == "real") return real_of(args[0]);
    auto c = complex_of(args[0]);
    if (!c) return bad("no complex dtype for " + std::string(dtype_name(args[0])));
    return *c;
  }
};

}  // namespace

Status validate_dtype_expression(const std::string& text, const Task& task) {
  auto n = Parser(text).parse();
  if (!n) return n.error();
  return validate(**n, task, text);
}

std::vector<std::string> dtype_expression_params(const std::string& text) {
  std::vector<std::string> out;
  auto n = Parser(text).parse();
  if (n) collect_params(**n, out);
  return out;
}

Result<DType> resolve_param_dtype(const Task& task, const Param& p, const DTypeBinding& binding,
                                  const std::map<std::string, ScalarValue>& scalars, const std::map<std::string, int>& ranks) {
  auto n = Parser(p.dtype).parse();
  if (!n) return n.error();
  Resolver r{task, binding, scalars, ranks, p.dtype};
  return r.eval(**n);
}

}  // namespace kgb
