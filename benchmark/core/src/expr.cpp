#include "kgb/expr.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace kgb {
namespace {

// Recursive descent: sum := product (('+'|'-') product)*; product := unary
// (('*'|'/') unary)*; unary := '-' unary | primary; primary := number |
// identifier | call | '(' sum ')'.
class Parser {
 public:
  Parser(std::string_view text, const ExprContext& context) : text_(text), context_(context) {}

  Result<double> parse() {
    auto v = sum();
    if (!v) return v;
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected '" + std::string(text_.substr(pos_, 1)) + "'");
    return v;
  }

 private:
  Error fail(const std::string& what) const {
    return make_error("expr.syntax", "in expression \"" + std::string(text_) + "\" at offset " +
                                         std::to_string(pos_) + ": " + what);
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Result<double> sum() {
    auto left = product();
    if (!left) return left;
    double v = *left;
    for (;;) {
      if (accept('+')) {
        auto r = product();
        if (!r) return r;
        v += *r;
      } else if (accept('-')) {
        auto r = product();
        if (!r) return r;
        v -= *r;
      } else {
        return v;
      }
    }
  }

  Result<double> product() {
    auto left = unary();
    if (!left) return left;
    double v = *left;
    for (;;) {
      if (accept('*')) {
        auto r = unary();
        if (!r) return r;
        v *= *r;
      } else if (accept('/')) {
        auto r = unary();
        if (!r) return r;
        if (*r == 0) return fail("division by zero");
        v /= *r;
      } else {
        return v;
      }
    }
  }

  Result<double> unary() {
    if (accept('-')) {
      auto r = unary();
      if (!r) return r;
      return -*r;
    }
    return primary();
  }

  std::string identifier() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  Result<const HostTensor*> tensor_argument() {
    std::string name = identifier();
    if (name.empty()) return fail("expected a tensor name");
    const HostTensor* t = context_.tensor ? context_.tensor(name) : nullptr;
    if (!t) return fail("unknown tensor '" + name + "'");
    return t;
  }

  Result<double> call(const std::string& fn) {
    // accept('(') already consumed
    if (fn == "numel" || fn == "rank" || fn == "mean" || fn == "meansq") {
      auto t = tensor_argument();
      if (!t) return t.error();
      if (!accept(')')) return fail("expected ')'");
      const HostTensor& x = **t;
      if (fn == "numel") return static_cast<double>(x.numel());
      if (fn == "rank") return static_cast<double>(x.rank());
      double acc = 0;
      for (int64_t i = 0; i < x.numel(); ++i) {
        double e = x.get(i);
        acc += fn == "mean" ? e : e * e;
      }
      return x.numel() ? acc / static_cast<double>(x.numel()) : 0.0;
    }
    if (fn == "size") {
      auto t = tensor_argument();
      if (!t) return t.error();
      if (!accept(',')) return fail("size() takes a tensor and a dimension");
      auto d = sum();
      if (!d) return d;
      if (!accept(')')) return fail("expected ')'");
      int dim = static_cast<int>(*d);
      int r = (*t)->rank();
      if (dim < 0) dim += r;
      if (dim < 0 || dim >= r) return fail("size(): dimension " + std::to_string(static_cast<int>(*d)) + " out of range");
      return static_cast<double>((*t)->sizes()[dim]);
    }
    if (fn == "min" || fn == "max") {
      auto a = sum();
      if (!a) return a;
      if (!accept(',')) return fail(fn + "() takes two arguments");
      auto b = sum();
      if (!b) return b;
      if (!accept(')')) return fail("expected ')'");
      return fn == "min" ? std::min(*a, *b) : std::max(*a, *b);
    }
    if (fn == "log2" || fn == "sqrt" || fn == "floor" || fn == "ceil") {
      auto a = sum();
      if (!a) return a;
      if (!accept(')')) return fail("expected ')'");
      if (fn == "log2") return std::log2(*a);
      if (fn == "sqrt") return std::sqrt(*a);
      return fn == "floor" ? std::floor(*a) : std::ceil(*a);
    }
    if (fn == "cdiv" || fn == "mod") {
      auto a = sum();
      if (!a) return a;
      if (!accept(',')) return fail(fn + "() takes two arguments");
      auto b = sum();
      if (!b) return b;
      if (!accept(')')) return fail("expected ')'");
      if (*b == 0) return fail(fn + "(): division by zero");
      if (fn == "cdiv") return std::ceil(*a / *b);
      return *a - *b * std::floor(*a / *b);  // the sign of the divisor, as Python's %
    }
    if (fn == "if") {
      auto c = sum();
      if (!c) return c;
      if (!accept(',')) return fail("if() takes a condition and two values");
      auto a = sum();
      if (!a) return a;
      if (!accept(',')) return fail("if() takes a condition and two values");
      auto b = sum();
      if (!b) return b;
      if (!accept(')')) return fail("expected ')'");
      return *c != 0 ? *a : *b;
    }
    if (fn == "at" || fn == "len" || fn == "prod" || fn == "sum") {
      std::string name = identifier();
      const std::vector<int64_t>* list = context_.int_list ? context_.int_list(name) : nullptr;
      if (!list) return fail(fn + "(): '" + name + "' is not an int_list parameter with a value");
      double result = 0;
      if (fn == "at") {
        if (!accept(',')) return fail("at() takes a list and an index");
        auto i = sum();
        if (!i) return i;
        auto n = static_cast<int64_t>(list->size());
        auto k = static_cast<int64_t>(*i);
        if (k < 0) k += n;
        if (k < 0 || k >= n) return fail("at(): index " + std::to_string(static_cast<int64_t>(*i)) + " outside a list of " + std::to_string(n));
        result = static_cast<double>((*list)[static_cast<size_t>(k)]);
      } else if (fn == "len") {
        result = static_cast<double>(list->size());
      } else {
        result = fn == "prod" ? 1 : 0;
        for (int64_t v : *list) result = fn == "prod" ? result * static_cast<double>(v) : result + static_cast<double>(v);
      }
      if (!accept(')')) return fail("expected ')'");
      return result;
    }
    if (fn == "count" || fn == "elem") {
      std::string name = identifier();
      std::optional<int64_t> v;
      if (fn == "count" && context_.list_count) v = context_.list_count(name);
      if (fn == "elem" && context_.element_size) v = context_.element_size(name);
      if (!v) return fail(fn + "(): unknown " + (fn == "count" ? "tensor list" : "dtype") + " '" + name + "'");
      if (!accept(')')) return fail("expected ')'");
      return static_cast<double>(*v);
    }
    return fail("unknown function '" + fn + "'");
  }

  Result<double> primary() {
    skip_space();
    if (pos_ >= text_.size()) return fail("unexpected end");
    char c = text_[pos_];
    if (accept('(')) {
      auto v = sum();
      if (!v) return v;
      if (!accept(')')) return fail("expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* begin = text_.data() + pos_;
      char* end = nullptr;
      std::string copy(text_.substr(pos_));
      double v = std::strtod(copy.c_str(), &end);
      size_t used = static_cast<size_t>(end - copy.c_str());
      if (used == 0) return fail("bad number");
      (void)begin;
      pos_ += used;
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::string name = identifier();
      if (accept('(')) return call(name);
      if (context_.variable) {
        if (auto v = context_.variable(name)) return *v;
      }
      return fail("unknown name '" + name + "'");
    }
    return fail("unexpected '" + std::string(1, c) + "'");
  }

  std::string_view text_;
  const ExprContext& context_;
  size_t pos_ = 0;
};

}  // namespace

Result<double> evaluate_expression(std::string_view text, const ExprContext& context) {
  if (text.empty()) return make_error("expr.empty", "empty expression");
  return Parser(text, context).parse();
}

std::vector<std::string> expression_identifiers(std::string_view text) {
  std::vector<std::string> names;
  size_t i = 0;
  while (i < text.size()) {
    if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      size_t start = i;
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
      size_t j = i;
      while (j < text.size() && text[j] == ' ') ++j;
      if (j >= text.size() || text[j] != '(') names.emplace_back(text.substr(start, i - start));
    } else if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    } else {
      ++i;
    }
  }
  return names;
}

}  // namespace kgb
