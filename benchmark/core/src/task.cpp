// spec.json loader (format v2). Strict: every object is checked against the
// keys allowed at its position, every reference to another name is resolved,
// and every problem becomes an Error naming the file and the JSON path. The
// loader never throws on bad input.
#include "kgb/task.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kgb/decimal_text.h"
#include "kgb/dtype_expr.h"
#include "kgb/expr.h"
#include "kgb/wire.h"

namespace kgb {

// Ordered: enum values, type variables and unknown keys are reported in spec order.
using json = nlohmann::ordered_json;

const Param* Task::param(std::string_view name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

int Task::param_index(std::string_view name) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<const Task*> Task::entries() const {
  std::vector<const Task*> out{this};
  for (const auto& o : overloads) out.push_back(&o);
  return out;
}

const int64_t* Param::enum_number(std::string_view n) const {
  for (const auto& [name, number] : enum_values)
    if (name == n) return &number;
  return nullptr;
}

const std::string* Param::enum_name(int64_t number) const {
  for (const auto& [name, value] : enum_values)
    if (value == number) return &name;
  return nullptr;
}

std::optional<double> ScalarValue::number() const {
  switch (kind) {
    case Kind::Int: case Kind::Bool: case Kind::Enum: return static_cast<double>(i);
    case Kind::Float: return f;
    case Kind::Complex: return c.real();
    case Kind::None: case Kind::IntList: return std::nullopt;
  }
  return std::nullopt;
}

std::string format_double(double value) {
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

std::string ScalarValue::to_string() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Int: os << i; break;
    case Kind::Bool: return i ? "true" : "false";
    case Kind::Float: os << format_double(f); break;
    case Kind::Complex:
      os << "(" << format_double(c.real()) << (c.imag() < 0 ? " - " : " + ") << format_double(std::abs(c.imag())) << "i)";
      break;
    case Kind::Enum: return name;
    case Kind::IntList:
      os << "[";
      for (size_t k = 0; k < list.size(); ++k) os << (k ? ", " : "") << list[k];
      os << "]";
      break;
  }
  return os.str();
}

ScalarValue ScalarValue::of_int(int64_t v) {
  ScalarValue s;
  s.kind = Kind::Int;
  s.i = v;
  return s;
}
ScalarValue ScalarValue::of_float(double v) {
  ScalarValue s;
  s.kind = Kind::Float;
  s.f = v;
  return s;
}
ScalarValue ScalarValue::of_bool(bool v) {
  ScalarValue s;
  s.kind = Kind::Bool;
  s.i = v ? 1 : 0;
  return s;
}

namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

bool is_identifier(const std::string& s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Collects the context (file, JSON path) for error messages.
class SpecReader {
 public:
  explicit SpecReader(std::filesystem::path file) : file_(std::move(file)) {}

  Error error(const std::string& field, const std::string& what) const {
    return make_error("spec.invalid", file_.string() + ": field '" + field + "': " + what);
  }

  static std::string type_name(const json& j) { return j.type_name(); }
  static std::string at(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
  static std::string index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

  // Every key of `obj` must be one of `allowed`.
  Status keys(const json& obj, const std::string& path, std::initializer_list<const char*> allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool known = false;
      for (const char* a : allowed) known = known || it.key() == a;
      if (known) continue;
      std::vector<std::string> names(allowed.begin(), allowed.end());
      return error(at(path, it.key()), "unknown key (expected one of " + join(names, ", ") + ")");
    }
    return Ok{};
  }

  Result<std::string> string_field(const json& obj, const std::string& key, const std::string& path, bool required,
                                   std::string fallback = "") const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) return error(at(path, key), "missing; expected a string");
      return fallback;
    }
    if (!it->is_string()) return error(at(path, key), "expected a string, found " + type_name(*it));
    return it->get<std::string>();
  }

  Result<bool> bool_field(const json& obj, const std::string& key, const std::string& path, bool fallback) const {
    auto it = obj.find(key);
    if (it == obj.end()) return fallback;
    if (!it->is_boolean()) return error(at(path, key), "expected true or false, found " + type_name(*it));
    return it->get<bool>();
  }

  Result<double> number_field(const json& obj, const std::string& key, const std::string& path, double fallback) const {
    auto it = obj.find(key);
    if (it == obj.end()) return fallback;
    if (!it->is_number()) return error(at(path, key), "expected a number, found " + type_name(*it));
    return it->get<double>();
  }

  // A dimension or numeric-expression entry: integer or string.
  Result<std::string> dim_entry(const json& j, const std::string& path) const {
    if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
    if (j.is_string() && !j.get<std::string>().empty()) return j.get<std::string>();
    return error(path, "expected an integer or a dim expression, found " + type_name(j));
  }

  Result<std::vector<std::string>> shape(const json& j, const std::string& path) const {
    if (!j.is_array()) return error(path, "expected an array of dims, found " + type_name(j));
    if (j.size() > KGB_MAX_RANK) return error(path, "rank " + std::to_string(j.size()) + " is above the maximum of 8");
    std::vector<std::string> dims;
    for (size_t i = 0; i < j.size(); ++i) {
      auto d = dim_entry(j[i], index(path, i));
      if (!d) return d.error();
      dims.push_back(*d);
    }
    return dims;
  }

  Result<std::string> expression(const json& obj, const std::string& key, const std::string& path,
                                 std::string fallback) const {
    auto it = obj.find(key);
    if (it == obj.end()) return fallback;
    if (it->is_number()) return format_double(it->get<double>());
    if (!it->is_string() || it->get<std::string>().empty())
      return error(at(path, key), "expected an expression (string or number), found " + type_name(*it));
    return it->get<std::string>();
  }

  Result<std::vector<double>> numbers(const json& j, const std::string& path) const {
    if (!j.is_array()) return error(path, "expected an array of numbers, found " + type_name(j));
    std::vector<double> out;
    for (const auto& v : j) {
      if (!v.is_number()) return error(path, "expected numbers, found " + v.dump());
      out.push_back(v.get<double>());
    }
    return out;
  }

  Result<Distribution> distribution(const json& j, const std::string& path) const {
    Distribution d;
    if (!j.is_object()) return error(path, "expected an object like {\"kind\": \"uniform\", \"low\": \"0\", \"high\": \"1\"}");
    if (auto s = keys(j, path, {"kind", "low", "high", "mean", "stddev", "special", "exclude", "sorted", "values", "per",
                                "dim", "pad", "count", "generator"});
        !s)
      return s.error();
    auto kind = string_field(j, "kind", path, true);
    if (!kind) return kind.error();
    static const std::set<std::string> kinds{"normal", "uniform", "randint", "bernoulli", "arange", "permutation",
                                             "bits", "choice", "unique_randint", "mask", "custom"};
    if (!kinds.count(*kind))
      return error(at(path, "kind"), "expected one of normal|uniform|randint|bernoulli|arange|permutation|bits|choice|"
                                     "unique_randint|mask|custom, found '" + *kind + "'");
    d.kind = *kind;
    if (d.kind == "randint" || d.kind == "unique_randint") {
      d.low = "0";
      d.high = "100";
    }
    auto low = expression(j, "low", path, d.low);
    if (!low) return low.error();
    auto high = expression(j, "high", path, d.high);
    if (!high) return high.error();
    d.low = *low;
    d.high = *high;
    auto mean = number_field(j, "mean", path, 0.0), stddev = number_field(j, "stddev", path, 1.0),
         special = number_field(j, "special", path, 0.0);
    if (!mean) return mean.error();
    if (!stddev) return stddev.error();
    if (!special) return special.error();
    d.mean = *mean;
    d.stddev = *stddev;
    d.special_fraction = *special;
    if (d.special_fraction < 0 || d.special_fraction > 1) return error(at(path, "special"), "expected a fraction between 0 and 1");
    if (j.contains("exclude")) {
      auto ex = numbers(j["exclude"], at(path, "exclude"));
      if (!ex) return ex.error();
      d.exclude = *ex;
    }
    auto sorted = bool_field(j, "sorted", path, false);
    if (!sorted) return sorted.error();
    d.sorted = *sorted;
    if (j.contains("values")) {
      if (d.kind != "choice") return error(at(path, "values"), "only a 'choice' distribution takes values");
      auto v = numbers(j["values"], at(path, "values"));
      if (!v) return v.error();
      if (v->empty()) return error(at(path, "values"), "expected at least one value");
      d.choice = *v;
    } else if (d.kind == "choice") {
      return error(at(path, "values"), "missing; a 'choice' distribution draws from a list of values");
    }
    auto per = string_field(j, "per", path, false, "tensor");
    if (!per) return per.error();
    if (*per != "tensor" && *per != "slice") return error(at(path, "per"), "expected tensor or slice, found '" + *per + "'");
    d.per = *per;
    if (j.contains("dim")) {
      if (!j["dim"].is_number_integer()) return error(at(path, "dim"), "expected an integer dimension");
      d.dim = j["dim"].get<int64_t>();
    }
    if (d.per == "slice" && !j.contains("dim")) return error(at(path, "dim"), "missing; per: slice needs the dimension of the slices");
    if (j.contains("pad")) {
      const json& pad = j["pad"];
      std::string pp = at(path, "pad");
      if (!pad.is_object()) return error(pp, "expected {\"value\": -1, \"share\": 0.1}");
      if (auto s = keys(pad, pp, {"value", "share"}); !s) return s.error();
      if (!pad.contains("value") || !pad["value"].is_number_integer()) return error(at(pp, "value"), "expected an integer");
      auto share = number_field(pad, "share", pp, 0.1);
      if (!share) return share.error();
      if (*share < 0 || *share > 1) return error(at(pp, "share"), "expected a fraction between 0 and 1");
      d.pad_value = pad["value"].get<int64_t>();
      d.pad_share = *share;
    }
    auto count = expression(j, "count", path, "0");
    if (!count) return count.error();
    d.count = *count;
    if (d.kind == "mask" && !j.contains("count")) return error(at(path, "count"), "missing; a mask has exactly this many trues");
    auto gen = string_field(j, "generator", path, d.kind == "custom");
    if (!gen) return gen.error();
    d.generator = *gen;
    if (!d.generator.empty() && d.kind != "custom") return error(at(path, "generator"), "only a 'custom' distribution names a generator");
    return d;
  }

  Result<Layout> layout(const json& j, const std::string& path) const {
    Layout l;
    if (!j.is_object()) return error(path, "expected an object like {\"kind\": \"transposed\"}");
    if (auto s = keys(j, path, {"kind", "pad", "step", "strides", "offset", "like", "conj", "neg"}); !s) return s.error();
    auto kind = string_field(j, "kind", path, false, "contiguous");
    if (!kind) return kind.error();
    static const std::set<std::string> kinds{"contiguous", "transposed", "step", "strides"};
    if (!kinds.count(*kind)) return error(at(path, "kind"), "expected contiguous|transposed|step|strides, found '" + *kind + "'");
    l.kind = *kind;
    auto non_negative = [&](const char* key, int64_t& target, int64_t minimum) -> Status {
      if (!j.contains(key)) return Ok{};
      if (!j[key].is_number_integer() || j[key].get<int64_t>() < minimum)
        return error(at(path, key), minimum ? "expected a positive integer" : "expected a non-negative integer");
      target = j[key].get<int64_t>();
      return Ok{};
    };
    if (auto s = non_negative("pad", l.pad, 0); !s) return s.error();
    if (auto s = non_negative("step", l.step, 1); !s) return s.error();
    if (auto s = non_negative("offset", l.offset, 0); !s) return s.error();
    if (j.contains("step") && l.kind != "step") return error(at(path, "step"), "only kind 'step' takes a step");
    if (l.kind == "strides") {
      if (!j.contains("strides") || !j["strides"].is_array()) return error(at(path, "strides"), "expected an array of element strides");
      for (const auto& s : j["strides"]) {
        if (!s.is_number_integer()) return error(at(path, "strides"), "expected integers (negative allowed)");
        l.strides.push_back(s.get<int64_t>());
      }
    } else if (j.contains("strides")) {
      return error(at(path, "strides"), "only kind 'strides' takes explicit strides");
    }
    auto like = string_field(j, "like", path, false);
    if (!like) return like.error();
    l.like = *like;
    auto conj = bool_field(j, "conj", path, false), neg = bool_field(j, "neg", path, false);
    if (!conj) return conj.error();
    if (!neg) return neg.error();
    l.conj = *conj;
    l.neg = *neg;
    return l;
  }

  Result<std::vector<DType>> dtype_list(const json& j, const std::string& path) const {
    if (!j.is_array() || j.empty()) return error(path, "expected a non-empty array of dtype names");
    std::vector<DType> out;
    for (const auto& v : j) {
      auto dt = v.is_string() ? parse_dtype(v.get<std::string>()) : std::nullopt;
      if (!dt) return error(path, "expected dtype names (" + all_dtype_names() + "), found " + v.dump());
      out.push_back(*dt);
    }
    return out;
  }

  static std::string all_dtype_names() {
    std::vector<std::string> names;
    for (DType d : kAllDTypes) names.emplace_back(dtype_name(d));
    return join(names, " ");
  }

  Result<Param> param(const json& j, const std::string& path, const Task& task) const {
    Param p;
    if (!j.is_object()) return error(path, "expected an object, found " + type_name(j));
    const bool tensor = j.contains("tensor"), list = j.contains("tensor_list"), scalar = j.contains("scalar"),
               scalar_out = j.contains("scalar_output");
    if (tensor + list + scalar + scalar_out != 1)
      return error(path, "expected exactly one of \"tensor\" (input|output|inout|view|scratch), \"tensor_list\", "
                         "\"scalar\" or \"scalar_output\"");
    Status known = tensor ? keys(j, path, {"name", "description", "tensor", "dtype", "shape", "layout", "dist", "optional",
                                           "alias_of", "alias", "init", "after", "location"})
                   : list ? keys(j, path, {"name", "description", "tensor_list", "dtype", "count", "shape", "layout",
                                           "nullable", "pointer_array", "dist", "location", "alias_of", "alias"})
                   : scalar ? keys(j, path, {"name", "description", "scalar", "random", "optional", "values", "length"})
                            : keys(j, path, {"name", "description", "scalar_output"});
    if (!known) return known.error();
    auto name = string_field(j, "name", path, true);
    if (!name) return name.error();
    p.name = *name;
    if (!is_identifier(p.name)) return error(at(path, "name"), "expected a C identifier, found '" + p.name + "'");
    auto desc = string_field(j, "description", path, false);
    if (!desc) return desc.error();
    p.description = *desc;
    auto optional = bool_field(j, "optional", path, false);
    if (!optional) return optional.error();
    p.optional = *optional;

    if (scalar_out) {
      p.kind = ParamKind::ScalarOutput;
      auto v = string_field(j, "scalar_output", path, true);
      if (!v) return v.error();
      if (*v != "scalar") return error(at(path, "scalar_output"), "expected \"scalar\" (a host kgb_scalar result), found '" + *v + "'");
      return p;
    }
    if (scalar) {
      p.kind = ParamKind::Scalar;
      auto type = string_field(j, "scalar", path, true);
      if (!type) return type.error();
      static const std::map<std::string, ScalarType> types{
          {"int64", ScalarType::Int64},     {"float64", ScalarType::Float64}, {"bool", ScalarType::Bool},
          {"complex", ScalarType::Complex}, {"scalar", ScalarType::AtenScalar}, {"enum", ScalarType::Enum},
          {"int_list", ScalarType::IntList}};
      auto t = types.find(*type);
      if (t == types.end()) return error(at(path, "scalar"), "expected int64|float64|bool|complex|scalar|enum|int_list, found '" + *type + "'");
      p.scalar_type = t->second;
      auto random = bool_field(j, "random", path, false);
      if (!random) return random.error();
      p.random = *random;
      if (p.random && p.scalar_type != ScalarType::Int64) return error(at(path, "random"), "only int64 scalars can be random seeds");
      if (p.random && p.optional) return error(at(path, "optional"), "a random seed is never None");
      if (p.scalar_type == ScalarType::Enum) {
        if (!j.contains("values") || !j["values"].is_object() || j["values"].empty())
          return error(at(path, "values"), "an enum needs {\"NAME\": number, ...}");
        for (auto it = j["values"].begin(); it != j["values"].end(); ++it) {
          if (!it.value().is_number_integer()) return error(at(at(path, "values"), it.key()), "expected an integer");
          p.enum_values.emplace_back(it.key(), it.value().get<int64_t>());
        }
      } else if (j.contains("values")) {
        return error(at(path, "values"), "only an enum takes values");
      }
      if (j.contains("length")) {
        if (p.scalar_type != ScalarType::IntList) return error(at(path, "length"), "only an int_list takes a length");
        auto len = expression(j, "length", path, "");
        if (!len) return len.error();
        p.list_length = *len;
      }
      return p;
    }

    p.kind = tensor ? ParamKind::Tensor : ParamKind::TensorList;
    auto role = string_field(j, tensor ? "tensor" : "tensor_list", path, true);
    if (!role) return role.error();
    static const std::map<std::string, TensorRole> roles{{"input", TensorRole::Input}, {"output", TensorRole::Output},
                                                         {"inout", TensorRole::InOut}, {"view", TensorRole::View},
                                                         {"scratch", TensorRole::Scratch}};
    auto r = roles.find(*role);
    if (r == roles.end() || (list && r->second == TensorRole::Scratch))
      return error(at(path, tensor ? "tensor" : "tensor_list"),
                   std::string("expected ") + (tensor ? "input|output|inout|view|scratch" : "input|output|inout|view") + ", found '" + *role + "'");
    p.role = r->second;
    auto dtype = string_field(j, "dtype", path, true);
    if (!dtype) return dtype.error();
    p.dtype = *dtype;
    if (auto s = validate_dtype_expression(p.dtype, task); !s) return error(at(path, "dtype"), s.error().message);
    if (tensor && !j.contains("shape")) return error(at(path, "shape"), "missing; expected an array of dims or the name of an int_list parameter");
    if (j.contains("shape")) {
      if (j["shape"].is_string()) {
        p.shape_from = j["shape"].get<std::string>();
      } else {
        auto shape_r = shape(j["shape"], at(path, "shape"));
        if (!shape_r) return shape_r.error();
        p.shape = *shape_r;
      }
    }
    if (j.contains("layout")) {
      auto l = layout(j["layout"], at(path, "layout"));
      if (!l) return l.error();
      p.layout = *l;
    }
    if (j.contains("dist")) {
      if (p.role == TensorRole::Output || p.role == TensorRole::View || p.role == TensorRole::Scratch)
        return error(at(path, "dist"), "only input and inout tensors are drawn from a distribution");
      auto d = distribution(j["dist"], at(path, "dist"));
      if (!d) return d.error();
      p.distribution = *d;
    } else if (auto dt = parse_dtype(p.dtype); dt && is_integral(*dt)) {
      p.distribution.kind = *dt == DType::Bool ? "bernoulli" : "randint";
      p.distribution.low = *dt == DType::Bool ? "0" : (*dt == DType::U8 ? "0" : "-100");
      p.distribution.high = *dt == DType::Bool ? "1" : "101";
    }
    auto location = string_field(j, "location", path, false, "device");
    if (!location) return location.error();
    if (*location != "device" && *location != "host") return error(at(path, "location"), "expected device or host, found '" + *location + "'");
    p.host_resident = *location == "host";
    if (tensor) {
      auto alias_of = string_field(j, "alias_of", path, false);
      if (!alias_of) return alias_of.error();
      p.alias_of = *alias_of;
      auto alias = string_field(j, "alias", path, false, "required");
      if (!alias) return alias.error();
      static const std::map<std::string, AliasRule> rules{{"required", AliasRule::Required},
                                                          {"when_possible", AliasRule::WhenPossible},
                                                          {"allowed", AliasRule::Allowed}};
      if (!rules.count(*alias)) return error(at(path, "alias"), "expected required|when_possible|allowed, found '" + *alias + "'");
      p.alias = rules.at(*alias);
      if (p.role == TensorRole::View && p.alias_of.empty()) return error(at(path, "alias_of"), "missing; a view names the input it lies in");
      if (p.role != TensorRole::View && (j.contains("alias_of") || j.contains("alias")))
        return error(at(path, j.contains("alias_of") ? "alias_of" : "alias"), "only a view output has alias_of and alias");
      auto init = string_field(j, "init", path, false, "poison"), after = string_field(j, "after", path, false, "any");
      if (!init) return init.error();
      if (!after) return after.error();
      if ((j.contains("init") || j.contains("after")) && p.role != TensorRole::Scratch)
        return error(at(path, j.contains("init") ? "init" : "after"), "only a scratch tensor has init and after");
      if (*init != "poison" && *init != "zero") return error(at(path, "init"), "expected poison or zero, found '" + *init + "'");
      if (*after != "any" && *after != "zero") return error(at(path, "after"), "expected any or zero, found '" + *after + "'");
      p.scratch_zero_init = *init == "zero";
      p.scratch_zero_after = *after == "zero";
      if (p.optional && p.role != TensorRole::Input && p.role != TensorRole::InOut && p.role != TensorRole::Output)
        return error(at(path, "optional"), "only input, inout and output tensors can be optional");
    } else {
      auto count = expression(j, "count", path, "");
      if (!count) return count.error();
      if (count->empty()) return error(at(path, "count"), "missing; expected the number of items (an expression)");
      p.count = *count;
      auto nullable = bool_field(j, "nullable", path, false), ptrs = bool_field(j, "pointer_array", path, false);
      if (!nullable) return nullable.error();
      if (!ptrs) return ptrs.error();
      p.nullable = *nullable;
      p.pointer_array = *ptrs;
      if (p.role == TensorRole::View && p.pointer_array) return error(at(path, "pointer_array"), "a list of views has no pointer array");
      // A list of views (split and friends): every item is a view of one input, always an alias.
      auto alias_of = string_field(j, "alias_of", path, false);
      if (!alias_of) return alias_of.error();
      p.alias_of = *alias_of;
      if (p.role != TensorRole::View && (j.contains("alias_of") || j.contains("alias")))
        return error(at(path, j.contains("alias_of") ? "alias_of" : "alias"), "only a view output has alias_of and alias");
      if (p.role == TensorRole::View && p.alias_of.empty()) return error(at(path, "alias_of"), "missing; a list of views names the input it lies in");
      auto alias = string_field(j, "alias", path, false, "required");
      if (!alias) return alias.error();
      if (*alias != "required") return error(at(path, "alias"), "a list of views is always an alias: expected required, found '" + *alias + "'");
    }
    return p;
  }

  // JSON has no infinities or NaN: float scalars spell them as strings
  // (pairwise_distance's p = inf, renorm's p = inf).
  static std::optional<double> non_finite(const json& v) {
    if (!v.is_string()) return std::nullopt;
    const std::string& text = v.get_ref<const std::string&>();
    if (text == "inf" || text == "+inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    return std::nullopt;
  }

  Result<ScalarValue> scalar_value(const json& v, const Param& p, const std::string& path) const {
    if (v.is_null()) {
      if (!p.optional) return error(path, "null (None) is only allowed for an optional parameter");
      ScalarValue s;
      s.kind = ScalarValue::Kind::None;
      return s;
    }
    switch (p.scalar_type) {
      case ScalarType::Int64:
        if (!v.is_number_integer()) {
          // v1 specs wrote integral scalars as 2.0: accept exact integers only.
          if (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) < 9.0e15)
            return ScalarValue::of_int(static_cast<int64_t>(v.get<double>()));
          return error(path, "expected an integer, found " + v.dump());
        }
        return ScalarValue::of_int(v.get<int64_t>());
      case ScalarType::Float64:
        if (auto x = non_finite(v)) return ScalarValue::of_float(*x);
        if (!v.is_number()) return error(path, "expected a number or \"inf\", \"-inf\", \"nan\", found " + v.dump());
        return ScalarValue::of_float(v.get<double>());
      case ScalarType::Bool:
        if (v.is_boolean()) return ScalarValue::of_bool(v.get<bool>());
        if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) return ScalarValue::of_bool(v.get<int64_t>() != 0);
        return error(path, "expected true or false, found " + v.dump());
      case ScalarType::Complex: {
        if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
          return error(path, "expected [re, im], found " + v.dump());
        ScalarValue s;
        s.kind = ScalarValue::Kind::Complex;
        s.c = {v[0].get<double>(), v[1].get<double>()};
        return s;
      }
      case ScalarType::AtenScalar: {
        if (v.is_boolean()) return ScalarValue::of_bool(v.get<bool>());
        if (v.is_number_integer()) return ScalarValue::of_int(v.get<int64_t>());
        if (v.is_number_float()) return ScalarValue::of_float(v.get<double>());
        if (auto x = non_finite(v)) return ScalarValue::of_float(*x);
        if (v.is_object() && v.size() == 1 && v.contains("c")) {
          const json& c = v["c"];
          if (!c.is_array() || c.size() != 2 || !c[0].is_number() || !c[1].is_number())
            return error(at(path, "c"), "expected [re, im], found " + c.dump());
          ScalarValue s;
          s.kind = ScalarValue::Kind::Complex;
          s.c = {c[0].get<double>(), c[1].get<double>()};
          return s;
        }
        if (v.is_object() && v.size() == 1 && v.contains("i") && v["i"].is_string()) {
          // Exact 64-bit integers through any JSON reader.
          const std::string text = v["i"].get<std::string>();
          try {
            size_t used = 0;
            long long x = std::stoll(text, &used, 10);
            if (used != text.size()) throw std::invalid_argument(text);
            return ScalarValue::of_int(x);
          } catch (const std::exception&) {
            return error(at(path, "i"), "expected a decimal 64-bit integer in a string, found \"" + text + "\"");
          }
        }
        return error(path, "expected an ATen Scalar: a number, \"inf\", \"-inf\", \"nan\", true/false, {\"c\": [re, im]} or {\"i\": \"<int64>\"}, found " + v.dump());
      }
      case ScalarType::Enum: {
        if (!v.is_string()) return error(path, "expected one of the enum's names, found " + v.dump());
        const std::string n = v.get<std::string>();
        const int64_t* number = p.enum_number(n);
        if (!number) {
          std::vector<std::string> names;
          for (const auto& [k, x] : p.enum_values) names.push_back(k);
          return error(path, "unknown enum name '" + n + "' (expected one of " + join(names, ", ") + ")");
        }
        ScalarValue s;
        s.kind = ScalarValue::Kind::Enum;
        s.i = *number;
        s.name = n;
        return s;
      }
      case ScalarType::IntList: {
        if (!v.is_array()) return error(path, "expected an array of integers, found " + v.dump());
        ScalarValue s;
        s.kind = ScalarValue::Kind::IntList;
        for (const auto& x : v) {
          if (!x.is_number_integer()) return error(path, "expected integers, found " + x.dump());
          s.list.push_back(x.get<int64_t>());
        }
        return s;
      }
    }
    return error(path, "unsupported scalar");
  }

  Result<DTypeBinding> binding(const json& j, const std::string& path, const Task& task) const {
    DTypeBinding b;
    if (!j.is_object()) return error(path, "expected an object of type variable to dtype, like {\"T\": \"f16\"}");
    for (auto it = j.begin(); it != j.end(); ++it) {
      auto var = std::find_if(task.type_variables.begin(), task.type_variables.end(), [&](const auto& v) { return v.first == it.key(); });
      if (var == task.type_variables.end()) return error(at(path, it.key()), "not a type variable of the task");
      auto dt = it.value().is_string() ? parse_dtype(it.value().get<std::string>()) : std::nullopt;
      if (!dt) return error(at(path, it.key()), "expected a dtype name, found " + it.value().dump());
      if (std::find(var->second.begin(), var->second.end(), *dt) == var->second.end())
        return error(at(path, it.key()), "dtype " + std::string(dtype_name(*dt)) + " is not a value of " + it.key());
      b[it.key()] = *dt;
    }
    if (b.size() != task.type_variables.size()) return error(path, "expected a value for every type variable");
    return b;
  }

  Result<ListCase> list_case(const json& j, const std::string& path) const {
    ListCase lc;
    if (!j.is_object()) return error(path, "expected an object with shapes, shape, layouts, layout or aliasing");
    if (auto s = keys(j, path, {"shapes", "shape", "layouts", "layout", "aliasing"}); !s) return s.error();
    if (j.contains("shapes")) {
      std::string sp = at(path, "shapes");
      if (!j["shapes"].is_array()) return error(sp, "expected an array of per-item shapes (null for a None item)");
      for (size_t i = 0; i < j["shapes"].size(); ++i) {
        const json& item = j["shapes"][i];
        if (item.is_null()) {
          lc.shapes.emplace_back(std::nullopt);
          continue;
        }
        auto s = shape(item, index(sp, i));
        if (!s) return s.error();
        lc.shapes.emplace_back(*s);
      }
    }
    if (j.contains("shape")) {
      auto s = shape(j["shape"], at(path, "shape"));
      if (!s) return s.error();
      lc.shape = *s;
    }
    if (j.contains("layouts")) {
      std::string lp = at(path, "layouts");
      if (!j["layouts"].is_array()) return error(lp, "expected an array of per-item layouts");
      for (size_t i = 0; i < j["layouts"].size(); ++i) {
        auto l = layout(j["layouts"][i], index(lp, i));
        if (!l) return l.error();
        lc.layouts.push_back(*l);
      }
    }
    if (j.contains("layout")) {
      auto l = layout(j["layout"], at(path, "layout"));
      if (!l) return l.error();
      lc.layout = *l;
    }
    auto aliasing = string_field(j, "aliasing", path, false, "none");
    if (!aliasing) return aliasing.error();
    if (*aliasing != "none" && *aliasing != "repeat") return error(at(path, "aliasing"), "expected none or repeat, found '" + *aliasing + "'");
    lc.repeat = *aliasing == "repeat";
    return lc;
  }

  Result<Case> one_case(const json& j, const std::string& path, const Task& task, bool performance) const {
    Case c;
    if (!j.is_object()) return error(path, "expected an object, found " + type_name(j));
    if (auto s = keys(j, path, {"name", "dims", "shapes", "scalars", "dtypes", "layouts", "lists", "aliases", "deterministic",
                                "cpu", "expect_zero"});
        !s)
      return s.error();
    auto name = string_field(j, "name", path, true);
    if (!name) return name.error();
    c.name = *name;
    if (c.name.empty()) return error(at(path, "name"), "expected a non-empty name");
    if (j.contains("dims")) {
      if (!j["dims"].is_object()) return error(at(path, "dims"), "expected an object of dim name to size");
      for (auto it = j["dims"].begin(); it != j["dims"].end(); ++it) {
        if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0)
          return error(at(at(path, "dims"), it.key()), "expected a non-negative integer");
        if (!is_identifier(it.key())) return error(at(at(path, "dims"), it.key()), "expected a dim name (an identifier)");
        c.dims[it.key()] = it.value().get<int64_t>();
      }
    }
    auto tensor_named = [&](const std::string& key, const std::string& where) -> Result<const Param*> {
      const Param* p = task.param(key);
      if (!p || p->kind != ParamKind::Tensor) return error(where, "no tensor parameter named '" + key + "'");
      return p;
    };
    if (j.contains("shapes")) {
      if (!j["shapes"].is_object()) return error(at(path, "shapes"), "expected an object of tensor name to shape");
      for (auto it = j["shapes"].begin(); it != j["shapes"].end(); ++it) {
        std::string where = at(at(path, "shapes"), it.key());
        auto p = tensor_named(it.key(), where);
        if (!p) return p.error();
        if (it.value().is_null()) {
          if (!(*p)->optional) return error(where, "null (None) is only allowed for an optional tensor");
          c.shapes[it.key()] = std::nullopt;
          continue;
        }
        auto s = shape(it.value(), where);
        if (!s) return s.error();
        c.shapes[it.key()] = *s;
      }
    }
    if (j.contains("layouts")) {
      if (!j["layouts"].is_object()) return error(at(path, "layouts"), "expected an object of tensor name to layout");
      for (auto it = j["layouts"].begin(); it != j["layouts"].end(); ++it) {
        std::string where = at(at(path, "layouts"), it.key());
        auto p = tensor_named(it.key(), where);
        if (!p) return p.error();
        auto l = layout(it.value(), where);
        if (!l) return l.error();
        c.layouts[it.key()] = *l;
      }
    }
    if (j.contains("lists")) {
      if (!j["lists"].is_object()) return error(at(path, "lists"), "expected an object of list name to list settings");
      for (auto it = j["lists"].begin(); it != j["lists"].end(); ++it) {
        std::string where = at(at(path, "lists"), it.key());
        const Param* p = task.param(it.key());
        if (!p || p->kind != ParamKind::TensorList) return error(where, "no tensor_list parameter named '" + it.key() + "'");
        auto lc = list_case(it.value(), where);
        if (!lc) return lc.error();
        if (lc->repeat && p->role != TensorRole::Input) return error(at(where, "aliasing"), "only input lists may repeat a tensor");
        c.lists[it.key()] = *lc;
      }
    }
    if (j.contains("aliases")) {
      if (!j["aliases"].is_object()) return error(at(path, "aliases"), "expected {\"C\": \"A\"}: C placed on A's storage");
      for (auto it = j["aliases"].begin(); it != j["aliases"].end(); ++it) {
        std::string where = at(at(path, "aliases"), it.key());
        auto target = tensor_named(it.key(), where);
        if (!target) return target.error();
        if (!it.value().is_string()) return error(where, "expected the name of an input tensor");
        auto host = tensor_named(it.value().get<std::string>(), where);
        if (!host) return host.error();
        if ((*target)->role != TensorRole::Output && (*target)->role != TensorRole::InOut)
          return error(where, "only an output or inout tensor can be placed on another's storage");
        if ((*host)->role != TensorRole::Input) return error(where, "'" + (*host)->name + "' is not an input tensor");
        c.aliases[it.key()] = it.value().get<std::string>();
      }
    }
    if (j.contains("scalars")) {
      if (!j["scalars"].is_object()) return error(at(path, "scalars"), "expected an object of scalar name to value");
      for (auto it = j["scalars"].begin(); it != j["scalars"].end(); ++it) {
        std::string where = at(at(path, "scalars"), it.key());
        const Param* p = task.param(it.key());
        if (!p || p->kind != ParamKind::Scalar) return error(where, "no scalar parameter named '" + it.key() + "'");
        if (p->random) return error(where, "a random scalar is drawn by the harness; cases do not give it");
        auto v = scalar_value(it.value(), *p, where);
        if (!v) return v.error();
        c.scalars[it.key()] = *v;
      }
    }
    for (const auto& p : task.params) {
      if (p.kind == ParamKind::Scalar && !p.random && !c.scalars.count(p.name))
        return error(at(at(path, "scalars"), p.name), std::string("missing; every non-random scalar needs a value in every case") +
                                                         (p.optional ? " (null for None)" : ""));
    }
    if (j.contains("dtypes")) {
      const json& d = j["dtypes"];
      std::string dp = at(path, "dtypes");
      if (!d.is_array() || d.empty()) return error(dp, "expected an array of dtype names or of {variable: dtype} objects");
      for (size_t i = 0; i < d.size(); ++i) {
        if (d[i].is_string()) {
          if (task.type_variables.size() != 1)
            return error(index(dp, i), "with several type variables a case names each: {\"T\": \"f16\", \"U\": \"f32\"}");
          auto dt = parse_dtype(d[i].get<std::string>());
          const auto& values = task.type_variables[0].second;
          if (!dt) return error(index(dp, i), "expected a dtype name, found " + d[i].dump());
          if (std::find(values.begin(), values.end(), *dt) == values.end())
            return error(index(dp, i), "dtype " + d[i].get<std::string>() + " is not a variant of the task");
          c.dtypes.push_back({{task.type_variables[0].first, *dt}});
        } else {
          auto b = binding(d[i], index(dp, i), task);
          if (!b) return b.error();
          c.dtypes.push_back(*b);
        }
        if (!task.dtype_combinations.empty() &&
            std::find(task.dtype_combinations.begin(), task.dtype_combinations.end(), c.dtypes.back()) == task.dtype_combinations.end())
          return error(index(dp, i), "not one of the task's dtype_combinations");
      }
      if (task.type_variables.empty()) return error(dp, "the task has no type variables");
    }
    if (j.contains("deterministic")) {
      auto d = bool_field(j, "deterministic", path, true);
      if (!d) return d.error();
      c.deterministic = *d;
    }
    auto cpu = bool_field(j, "cpu", path, false);
    if (!cpu) return cpu.error();
    c.cpu = *cpu;
    if (c.cpu && !performance) return error(at(path, "cpu"), "only performance cases say whether CPU platforms time them");
    auto ez = bool_field(j, "expect_zero", path, false);
    if (!ez) return ez.error();
    c.expect_zero = *ez;
    return c;
  }

  std::filesystem::path file_;
};

std::string entry_name_for(const std::string& id, const std::string& overload) {
  std::string e = "kgb_";
  for (char c : id) e += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (!overload.empty()) {
    e += "_";
    for (char c : overload) e += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return e;
}

// Checks that need the whole entry: names referred to exist, shape and count
// expressions evaluate in every case, optional parameters are exercised.
Status check_entry(const SpecReader& r, const Task& t, const std::string& prefix) {
  auto at = [&](const std::string& field) { return prefix.empty() ? field : prefix + "." + field; };
  bool has_written = false;
  for (size_t i = 0; i < t.params.size(); ++i) {
    const Param& p = t.params[i];
    const std::string path = at("params[" + std::to_string(i) + "]");
    if (p.is_written() || p.kind == ParamKind::ScalarOutput) has_written = true;
    if (!p.alias_of.empty()) {
      const Param* a = t.param(p.alias_of);
      if (!a || a->kind != ParamKind::Tensor || a->role != TensorRole::Input)
        return r.error(path + ".alias_of", "'" + p.alias_of + "' is not an input tensor of the task");
    }
    for (const auto& name : dtype_expression_params(p.dtype)) {
      const Param* q = t.param(name);
      if (!q || q->kind == ParamKind::ScalarOutput || (q->kind == ParamKind::Scalar && q->scalar_type == ScalarType::IntList))
        return r.error(path + ".dtype", "'" + name + "' in \"" + p.dtype + "\" is not a tensor or scalar parameter");
    }
    if (!p.shape_from.empty()) {
      const Param* s = t.param(p.shape_from);
      if (!s || s->kind != ParamKind::Scalar || s->scalar_type != ScalarType::IntList)
        return r.error(path + ".shape", "'" + p.shape_from + "' is not an int_list parameter");
    }
    if (p.layout && !p.layout->like.empty()) {
      const Param* l = t.param(p.layout->like);
      if (!l || l->kind != ParamKind::Tensor) return r.error(path + ".layout.like", "'" + p.layout->like + "' is not a tensor parameter");
    }
  }
  if (!has_written) return r.error(at("params"), "no output, inout, view, scratch or scalar output");
  if (t.params.size() > 32) return r.error(at("params"), "more than 32 parameters");
  if (t.timing == TimingMode::None && !t.performance.empty())
    return r.error(at("performance"), "timing: none allows no performance cases");

  // Optional parameters: each must be present in one correctness case and None in another.
  for (const auto& p : t.params) {
    if (!p.optional) continue;
    bool present = false, none = false;
    for (const auto& c : t.correctness) {
      bool is_none = p.kind == ParamKind::Scalar ? c.scalars.at(p.name).none()
                                                 : c.shapes.count(p.name) && !c.shapes.at(p.name).has_value();
      (is_none ? none : present) = true;
    }
    if (!present || !none)
      return r.error(at("correctness"), "optional parameter '" + p.name + "' must be " + (present ? "None (null)" : "present") +
                                            " in at least one correctness case");
  }

  // Every shape and count expression evaluates in every case.
  for (auto [set_name, cases] : {std::pair{"correctness", &t.correctness}, std::pair{"performance", &t.performance},
                                 std::pair{"extended", &t.extended}}) {
    for (size_t ci = 0; ci < cases->size(); ++ci) {
      const Case& c = (*cases)[ci];
      const std::string cpath = at(std::string(set_name) + "[" + std::to_string(ci) + "]");
      ExprContext ctx;
      ctx.variable = [&c](std::string_view n) -> std::optional<double> {
        if (auto it = c.dims.find(std::string(n)); it != c.dims.end()) return static_cast<double>(it->second);
        if (auto it = c.scalars.find(std::string(n)); it != c.scalars.end()) return it->second.number();
        return std::nullopt;
      };
      ctx.int_list = [&c](std::string_view n) -> const std::vector<int64_t>* {
        auto it = c.scalars.find(std::string(n));
        return it != c.scalars.end() && it->second.kind == ScalarValue::Kind::IntList ? &it->second.list : nullptr;
      };
      auto check_dims = [&](const std::vector<std::string>& dims, const std::string& where) -> Status {
        for (const auto& d : dims) {
          auto v = evaluate_expression(d, ctx);
          if (!v) return r.error(where, "dim '" + d + "': " + v.error().message);
          if (*v < 0) return r.error(where, "dim '" + d + "' is negative (" + std::to_string(*v) + ")");
        }
        return Ok{};
      };
      for (const auto& p : t.params) {
        if (p.kind == ParamKind::Tensor) {
          auto it = c.shapes.find(p.name);
          if (it != c.shapes.end() && !it->second) continue;  // None
          if (it == c.shapes.end() && !p.shape_from.empty()) continue;  // from an int list: checked when built
          const auto& dims = it != c.shapes.end() ? *it->second : p.shape;
          if (auto s = check_dims(dims, cpath + ".shapes." + p.name); !s) return s.error();
        } else if (p.kind == ParamKind::TensorList) {
          auto count = evaluate_expression(p.count, ctx);
          if (!count) return r.error(cpath, "list '" + p.name + "' count '" + p.count + "': " + count.error().message);
          auto lc = c.lists.find(p.name);
          if (lc != c.lists.end() && !lc->second.shapes.empty()) {
            if (static_cast<double>(lc->second.shapes.size()) != *count)
              return r.error(cpath + ".lists." + p.name + ".shapes", "gives " + std::to_string(lc->second.shapes.size()) +
                                                                       " items; count is " + std::to_string(*count));
            for (size_t k = 0; k < lc->second.shapes.size(); ++k) {
              if (!lc->second.shapes[k]) {
                if (!p.nullable) return r.error(cpath + ".lists." + p.name + ".shapes[" + std::to_string(k) + "]", "None item in a list that is not nullable");
                continue;
              }
              if (auto s = check_dims(*lc->second.shapes[k], cpath + ".lists." + p.name + ".shapes[" + std::to_string(k) + "]"); !s) return s.error();
            }
          } else {
            const auto& dims = lc != c.lists.end() && !lc->second.shape.empty() ? lc->second.shape : p.shape;
            if (dims.empty() && p.shape_from.empty() && *count > 0)
              return r.error(cpath, "list '" + p.name + "' has no shape: give the param a shape or the case lists." + p.name + ".shapes");
            if (auto s = check_dims(dims, cpath + ".lists." + p.name + ".shape"); !s) return s.error();
          }
          if (lc != c.lists.end() && !lc->second.layouts.empty() && static_cast<double>(lc->second.layouts.size()) != *count)
            return r.error(cpath + ".lists." + p.name + ".layouts", "needs one layout per item");
        } else if (p.kind == ParamKind::Scalar && p.scalar_type == ScalarType::IntList && !p.list_length.empty()) {
          const ScalarValue& v = c.scalars.at(p.name);
          if (v.none()) continue;
          auto len = evaluate_expression(p.list_length, ctx);
          if (!len) return r.error(cpath + ".scalars." + p.name, "length '" + p.list_length + "': " + len.error().message);
          if (static_cast<double>(v.list.size()) != *len)
            return r.error(cpath + ".scalars." + p.name, "has " + std::to_string(v.list.size()) + " values; length is " + std::to_string(*len));
        }
      }
      for (const auto& [name, l] : c.layouts)
        if (!l.like.empty() && !t.param(l.like)) return r.error(cpath + ".layouts." + name + ".like", "no parameter named '" + l.like + "'");
    }
  }
  return Ok{};
}

// Fields an entry (the primary or an overload) reads; `base` supplies what an overload inherits.
Status read_entry(const SpecReader& r, const json& j, const std::string& prefix, Task& t) {
  auto path = [&](const std::string& field) { return prefix.empty() ? field : prefix + "." + field; };
  if (j.contains("params")) {
    t.params.clear();
    const json& params = j["params"];
    if (!params.is_array() || params.empty()) return r.error(path("params"), "expected a non-empty array of parameters");
    std::set<std::string> names;
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string pp = path("params[" + std::to_string(i) + "]");
      auto p = r.param(params[i], pp, t);
      if (!p) return p.error();
      if (!names.insert(p->name).second) return r.error(pp + ".name", "duplicate name '" + p->name + "'");
      if (p->name == "stream") return r.error(pp + ".name", "'stream' is reserved (appended automatically)");
      t.params.push_back(std::move(*p));
    }
  } else if (t.params.empty()) {
    return r.error(path("params"), "missing; expected an array of parameters");
  }
  if (j.contains("description")) {
    auto d = r.string_field(j, "description", prefix, true);
    if (!d) return d.error();
    t.description = *d;
  }
  for (auto [key, target] : {std::pair{"correctness", &t.correctness}, std::pair{"performance", &t.performance},
                             std::pair{"extended", &t.extended}}) {
    if (!j.contains(key)) {
      if (std::string(key) == "extended") continue;
      return r.error(path(key), "missing; expected an array of cases");
    }
    if (!j[key].is_array()) return r.error(path(key), "expected an array of cases");
    target->clear();
    std::set<std::string> case_names;
    for (size_t i = 0; i < j[key].size(); ++i) {
      const std::string cp = path(std::string(key) + "[" + std::to_string(i) + "]");
      auto c = r.one_case(j[key][i], cp, t, std::string(key) != "correctness");
      if (!c) return c.error();
      if (!case_names.insert(c->name).second) return r.error(cp + ".name", "duplicate case name '" + c->name + "'");
      target->push_back(std::move(*c));
    }
  }
  if (t.correctness.empty()) return r.error(path("correctness"), "expected at least one case");

  if (j.contains("tolerance")) {
    const json& tol = j["tolerance"];
    const std::string tp = path("tolerance");
    if (!tol.is_object()) return r.error(tp, "expected an object");
    if (auto s = r.keys(tol, tp, {"rtol", "atol", "reduction", "max_ulp"}); !s) return s.error();
    if (tol.contains("rtol")) {
      if (!tol["rtol"].is_object()) return r.error(tp + ".rtol", "expected an object of dtype to rtol");
      for (auto it = tol["rtol"].begin(); it != tol["rtol"].end(); ++it) {
        auto dt = parse_dtype(it.key());
        if (!dt || !it.value().is_number()) return r.error(tp + ".rtol." + it.key(), "expected a dtype name mapped to a number");
        t.tolerance.rtol[*dt] = it.value().get<double>();
      }
    }
    if (tol.contains("max_ulp")) {
      if (!tol["max_ulp"].is_object()) return r.error(tp + ".max_ulp", "expected an object of dtype to a step count");
      for (auto it = tol["max_ulp"].begin(); it != tol["max_ulp"].end(); ++it) {
        auto dt = parse_dtype(it.key());
        if (!dt || !is_floating(*dt) || !it.value().is_number_integer() || it.value().get<int64_t>() < 0)
          return r.error(tp + ".max_ulp." + it.key(), "expected a float dtype name mapped to a non-negative integer");
        t.tolerance.max_ulp[*dt] = static_cast<int>(it.value().get<int64_t>());
      }
    }
    auto atol = r.number_field(tol, "atol", tp, t.tolerance.atol);
    if (!atol) return atol.error();
    t.tolerance.atol = *atol;
    auto red = r.expression(tol, "reduction", tp, t.tolerance.reduction);
    if (!red) return red.error();
    t.tolerance.reduction = *red;
  }

  if (j.contains("check")) {
    const json& c = j["check"];
    const std::string cp = path("check");
    std::string kind = c.is_string() ? c.get<std::string>() : (c.is_object() && c.contains("kind") && c["kind"].is_string() ? c["kind"].get<std::string>() : "");
    auto tensor_output = [&](const std::string& key, std::string& target, bool required) -> Status {
      auto v = r.string_field(c, key, cp, required);
      if (!v) return v.error();
      target = *v;
      if (target.empty()) return Ok{};
      const Param* p = t.param(target);
      if (!p || p->kind != ParamKind::Tensor || !p->is_written()) return r.error(cp + "." + key, "expected the name of an output tensor");
      return Ok{};
    };
    auto order_fields = [&]() -> Status {
      if (auto s = tensor_output("values", t.order.values, true); !s) return s;
      if (auto s = tensor_output("indices", t.order.indices, true); !s) return s;
      auto dim = r.string_field(c, "dim", cp, true);
      if (!dim) return dim.error();
      t.order.dim = *dim;
      const Param* d = t.param(t.order.dim);
      if (!d || d->kind != ParamKind::Scalar) return r.error(cp + ".dim", "expected the name of a scalar parameter");
      auto input = r.string_field(c, "input", cp, false);
      if (!input) return input.error();
      t.order.input = *input;
      if (t.order.input.empty()) {
        for (const auto& p : t.params)
          if (p.kind == ParamKind::Tensor && p.role == TensorRole::Input) {
            t.order.input = p.name;
            break;
          }
      }
      const Param* in = t.param(t.order.input);
      if (!in || in->kind != ParamKind::Tensor || in->role != TensorRole::Input) return r.error(cp + ".input", "expected the name of an input tensor");
      return Ok{};
    };
    if (kind == "elementwise") {
      if (c.is_object())
        if (auto s = r.keys(c, cp, {"kind"}); !s) return s.error();
      t.check = CheckKind::Elementwise;
    } else if (kind == "sort") {
      if (auto s = r.keys(c, cp, {"kind", "values", "indices", "dim", "input"}); !s) return s.error();
      t.check = CheckKind::Sort;
      if (auto s = order_fields(); !s) return s.error();
    } else if (kind == "topk") {
      if (auto s = r.keys(c, cp, {"kind", "values", "indices", "dim", "input", "sorted"}); !s) return s.error();
      t.check = CheckKind::Topk;
      if (auto s = order_fields(); !s) return s.error();
      auto sorted = r.string_field(c, "sorted", cp, false);
      if (!sorted) return sorted.error();
      t.order.sorted = *sorted;
      if (!t.order.sorted.empty()) {
        const Param* s = t.param(t.order.sorted);
        if (!s || s->kind != ParamKind::Scalar || s->scalar_type != ScalarType::Bool) return r.error(cp + ".sorted", "expected the name of a bool scalar");
      }
    } else if (kind == "statistical") {
      if (auto s = r.keys(c, cp, {"kind", "support", "mean", "variance", "sigmas", "distribution", "strata", "strata_bins"}); !s)
        return s.error();
      t.check = CheckKind::Statistical;
      if (c.contains("support")) {
        const json& sup = c["support"];
        if (sup.is_array()) {
          auto v = r.numbers(sup, cp + ".support");
          if (!v) return v.error();
          t.statistical.support = *v;
        } else if (sup.is_object()) {
          if (auto s = r.keys(sup, cp + ".support", {"min", "max", "integer"}); !s) return s.error();
          t.statistical.support_is_interval = true;
          for (auto [key, target] : {std::pair{"min", &t.statistical.support_min}, std::pair{"max", &t.statistical.support_max}}) {
            if (!sup.contains(key) || sup[key].is_null()) continue;
            if (!sup[key].is_number()) return r.error(cp + ".support." + key, "expected a number or null");
            *target = sup[key].get<double>();
          }
          auto integer = r.bool_field(sup, "integer", cp + ".support", false);
          if (!integer) return integer.error();
          t.statistical.support_integer = *integer;
        } else {
          return r.error(cp + ".support", "expected an array of values or an interval {\"min\": 0, \"max\": null, \"integer\": true}");
        }
      }
      auto mean = r.expression(c, "mean", cp, "0");
      if (!mean) return mean.error();
      auto var = r.expression(c, "variance", cp, "1");
      if (!var) return var.error();
      t.statistical.mean = *mean;
      t.statistical.variance = *var;
      auto sig = r.number_field(c, "sigmas", cp, t.statistical.mean_sigmas);
      if (!sig) return sig.error();
      t.statistical.mean_sigmas = *sig;
      auto dist = r.bool_field(c, "distribution", cp, t.statistical.distribution);
      if (!dist) return dist.error();
      t.statistical.distribution = *dist;
      auto strata = r.string_field(c, "strata", cp, false);
      if (!strata) return strata.error();
      t.statistical.strata = *strata;
      if (!t.statistical.strata.empty()) {
        const Param* sp = t.param(t.statistical.strata);
        if (!sp || sp->kind != ParamKind::Tensor || sp->is_written())
          return r.error(cp + ".strata", "expected the name of an input tensor");
      }
      auto bins = r.number_field(c, "strata_bins", cp, t.statistical.strata_bins);
      if (!bins) return bins.error();
      if (*bins < 1 || *bins > 1000 || *bins != std::floor(*bins)) return r.error(cp + ".strata_bins", "expected an integer in [1, 1000]");
      t.statistical.strata_bins = static_cast<int>(*bins);
    } else if (kind == "custom") {
      if (c.is_object())
        if (auto s = r.keys(c, cp, {"kind"}); !s) return s.error();
      t.check = CheckKind::Custom;
    } else {
      return r.error(cp, "expected \"elementwise\", \"custom\", or {\"kind\": \"sort\" | \"topk\" | \"statistical\", ...}");
    }
  }

  if (j.contains("outputs")) {
    const json& o = j["outputs"];
    const std::string op = path("outputs");
    if (!o.is_object()) return r.error(op, "expected an object of output name to rule");
    for (auto it = o.begin(); it != o.end(); ++it) {
      const std::string where = op + "." + it.key();
      const Param* p = t.param(it.key());
      if (!p || !(p->is_written() || p->kind == ParamKind::ScalarOutput)) return r.error(where, "no output named '" + it.key() + "'");
      const json& v = it.value();
      if (!v.is_object()) return r.error(where, "expected an object like {\"rtol\": 1e-5} or {\"check\": \"none\"}");
      if (auto s = r.keys(v, where, {"check", "rtol", "atol", "max_ulp"}); !s) return s.error();
      OutputRule rule;
      auto mode = r.string_field(v, "check", where, false, "elementwise");
      if (!mode) return mode.error();
      if (*mode == "none") rule.mode = OutputRule::Mode::None;
      else if (*mode == "bitwise") rule.mode = OutputRule::Mode::Bitwise;
      else if (*mode != "elementwise") return r.error(where + ".check", "expected elementwise, bitwise or none, found '" + *mode + "'");
      auto per_dtype = [&](const char* key, auto store) -> Status {
        if (!v.contains(key)) return Ok{};
        const json& x = v[key];
        if (x.is_number()) {
          for (DType d : kAllDTypes) store(d, x.get<double>());
          return Ok{};
        }
        if (!x.is_object()) return r.error(where + "." + key, "expected a number or an object of dtype to number");
        for (auto e = x.begin(); e != x.end(); ++e) {
          auto dt = parse_dtype(e.key());
          if (!dt || !e.value().is_number()) return r.error(where + "." + key + "." + e.key(), "expected a dtype name mapped to a number");
          store(*dt, e.value().get<double>());
        }
        return Ok{};
      };
      if (auto s = per_dtype("rtol", [&](DType d, double x) { rule.rtol[d] = x; }); !s) return s.error();
      if (auto s = per_dtype("max_ulp", [&](DType d, double x) { if (is_floating(d)) rule.max_ulp[d] = static_cast<int>(x); }); !s) return s.error();
      if (v.contains("atol")) {
        if (!v["atol"].is_number()) return r.error(where + ".atol", "expected a number");
        rule.atol = v["atol"].get<double>();
      }
      t.output_rules[it.key()] = rule;
    }
  }
  for (auto [key, target] : {std::pair{"flops", &t.flops}, std::pair{"bytes", &t.bytes}}) {
    auto v = r.expression(j, key, prefix, *target);
    if (!v) return v.error();
    *target = *v;
  }
  return Ok{};
}

}  // namespace

Result<Task> load_task_text(const std::string& text, const std::filesystem::path& spec_file) {
  SpecReader r(spec_file);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return make_error("spec.json", spec_file.string() + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) return r.error("(top level)", "expected an object");
  if (auto s = r.keys(j, "", {"id", "upstream_name", "summary", "description", "overload", "overloads", "type_variables",
                              "dtype_combinations", "params", "correctness", "performance", "extended", "tolerance", "check",
                              "outputs", "deterministic", "device_work", "timing", "flops", "bytes", "banned_apis",
                              "baseline"});
      !s)
    return s.error();

  Task t;
  t.folder = spec_file.parent_path();
  {
    const std::string bytes = text;
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(wire::hash_bytes(bytes.data(), bytes.size())));
    t.spec_hash = hash;
  }
  auto id = r.string_field(j, "id", "", true);
  if (!id) return id.error();
  t.id = *id;
  auto slash = t.id.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == t.id.size() || t.id.find('/', slash + 1) != std::string::npos)
    return r.error("id", "expected '<source>/<name>', found '" + t.id + "'");
  t.source = t.id.substr(0, slash);
  t.name = t.id.substr(slash + 1);
  std::string folder_id = t.folder.parent_path().filename().string() + "/" + t.folder.filename().string();
  if (folder_id != t.id) return r.error("id", "'" + t.id + "' does not match its folder '" + folder_id + "'");

  auto upstream = r.string_field(j, "upstream_name", "", false);
  if (!upstream) return upstream.error();
  t.upstream_name = *upstream;
  if (!t.upstream_name.empty() && t.upstream_name.rfind("aten::", 0) != 0 && t.upstream_name.rfind("vllm13::", 0) != 0 &&
      t.upstream_name.rfind("cublas::", 0) != 0)
    return r.error("upstream_name", "expected a name in aten::, vllm13:: or cublas::, found '" + t.upstream_name + "'");
  auto overload = r.string_field(j, "overload", "", false);
  if (!overload) return overload.error();
  t.overload = *overload;
  if (!t.overload.empty() && !is_identifier(t.overload)) return r.error("overload", "expected an identifier, found '" + t.overload + "'");
  t.entry = entry_name_for(t.id, "");

  for (auto [key, target] : {std::pair{"summary", &t.summary}, std::pair{"description", &t.description}}) {
    auto v = r.string_field(j, key, "", true);
    if (!v) return v.error();
    *target = *v;
  }

  if (j.contains("type_variables")) {
    const json& tv = j["type_variables"];
    if (!tv.is_object()) return r.error("type_variables", "expected an object like {\"T\": [\"f32\", \"f64\"]}");
    if (tv.size() > 4) return r.error("type_variables", "at most four type variables");
    for (auto it = tv.begin(); it != tv.end(); ++it) {
      if (!is_identifier(it.key()) || parse_dtype(it.key())) return r.error("type_variables." + it.key(), "expected an identifier that is not a dtype name");
      auto values = r.dtype_list(it.value(), "type_variables." + it.key());
      if (!values) return values.error();
      t.type_variables.emplace_back(it.key(), *values);
      for (DType d : *values)
        if (std::find(t.dtypes.begin(), t.dtypes.end(), d) == t.dtypes.end()) t.dtypes.push_back(d);
    }
  }
  if (j.contains("dtype_combinations")) {
    const json& dc = j["dtype_combinations"];
    if (!dc.is_array() || dc.empty()) return r.error("dtype_combinations", "expected a non-empty array of {variable: dtype} objects");
    if (t.type_variables.empty()) return r.error("dtype_combinations", "the task declares no type variables");
    for (size_t i = 0; i < dc.size(); ++i) {
      auto b = r.binding(dc[i], "dtype_combinations[" + std::to_string(i) + "]", t);
      if (!b) return b.error();
      t.dtype_combinations.push_back(*b);
    }
  }

  auto det = r.bool_field(j, "deterministic", "", true);
  if (!det) return det.error();
  t.deterministic = *det;
  auto dw = r.string_field(j, "device_work", "", false, "kernel");
  if (!dw) return dw.error();
  if (*dw == "kernel") t.device_work = DeviceWork::Kernel;
  else if (*dw == "copy") t.device_work = DeviceWork::Copy;
  else if (*dw == "none") t.device_work = DeviceWork::None;
  else return r.error("device_work", "expected kernel, copy or none, found '" + *dw + "'");
  auto timing = r.string_field(j, "timing", "", false, "device");
  if (!timing) return timing.error();
  if (*timing == "device") t.timing = TimingMode::Device;
  else if (*timing == "host") t.timing = TimingMode::Host;
  else if (*timing == "none") t.timing = TimingMode::None;
  else return r.error("timing", "expected device, host or none, found '" + *timing + "'");

  if (j.contains("banned_apis")) {
    if (!j["banned_apis"].is_array()) return r.error("banned_apis", "expected an array of names");
    for (const auto& b : j["banned_apis"]) {
      if (!b.is_string()) return r.error("banned_apis", "expected strings");
      t.banned_apis.push_back(b.get<std::string>());
    }
  }
  auto baseline = r.string_field(j, "baseline", "", false, "plain");
  if (!baseline) return baseline.error();
  t.baseline = *baseline;

  if (!j.contains("params")) return r.error("params", "missing; expected an array of parameters");
  if (auto s = read_entry(r, j, "", t); !s) return s.error();
  if (auto s = check_entry(r, t, ""); !s) return s.error();

  if (j.contains("overloads")) {
    const json& ol = j["overloads"];
    if (!ol.is_array()) return r.error("overloads", "expected an array of extra entry points");
    std::set<std::string> names{t.overload};
    for (size_t i = 0; i < ol.size(); ++i) {
      const std::string op = "overloads[" + std::to_string(i) + "]";
      const json& o = ol[i];
      if (!o.is_object()) return r.error(op, "expected an object");
      if (auto s = r.keys(o, op, {"name", "description", "params", "correctness", "performance", "extended", "tolerance",
                                  "check", "outputs", "flops", "bytes"});
          !s)
        return s.error();
      auto name = r.string_field(o, "name", op, true);
      if (!name) return name.error();
      if (!is_identifier(*name)) return r.error(op + ".name", "expected an identifier, found '" + *name + "'");
      if (!names.insert(*name).second) return r.error(op + ".name", "duplicate overload '" + *name + "'");
      Task e = t;  // inherits everything it does not override
      e.overloads.clear();
      e.is_overload = true;
      e.overload = *name;
      e.entry = entry_name_for(t.id, *name);
      e.correctness.clear();
      e.performance.clear();
      e.extended.clear();
      if (o.contains("params")) e.output_rules.clear();
      if (auto s = read_entry(r, o, op, e); !s) return s.error();
      if (e.correctness.size() < 3) return r.error(op + ".correctness", "an overload needs at least 3 correctness cases");
      if (auto s = check_entry(r, e, op); !s) return s.error();
      t.overloads.push_back(std::move(e));
    }
  }
  return t;
}

Result<Task> load_task_file(const std::filesystem::path& spec_file) {
  std::ifstream in(spec_file, std::ios::binary);
  if (!in) return make_error("spec.unreadable", spec_file.string() + ": cannot be read");
  std::ostringstream os;
  os << in.rdbuf();
  return load_task_text(os.str(), spec_file);
}

TaskLoadReport load_all_tasks(const std::filesystem::path& root) {
  TaskLoadReport report;
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    report.errors.push_back(make_error("tasks.root", root.string() + ": not a directory"));
    return report;
  }
  std::vector<std::filesystem::path> specs;
  for (const auto& source : std::filesystem::directory_iterator(root, ec)) {
    if (!source.is_directory()) continue;
    for (const auto& task : std::filesystem::directory_iterator(source.path(), ec)) {
      if (!task.is_directory()) continue;
      auto spec = task.path() / "spec.json";
      if (std::filesystem::exists(spec)) specs.push_back(spec);
      else report.errors.push_back(make_error("spec.missing", task.path().string() + ": no spec.json"));
    }
  }
  std::sort(specs.begin(), specs.end());
  for (const auto& spec : specs) {
    auto t = load_task_file(spec);
    if (t) report.tasks.push_back(std::move(*t));
    else report.errors.push_back(t.error());
  }
  return report;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative '*' and '?' matching with backtracking to the last star.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<Task> filter_tasks(const std::vector<Task>& tasks, std::string_view glob) {
  if (glob.empty()) return tasks;
  std::vector<Task> out;
  // A comma-separated list of globs selects the union.
  std::vector<std::string_view> patterns;
  size_t start = 0;
  while (start <= glob.size()) {
    size_t comma = glob.find(',', start);
    if (comma == std::string_view::npos) comma = glob.size();
    if (comma > start) patterns.push_back(glob.substr(start, comma - start));
    start = comma + 1;
  }
  for (const auto& t : tasks)
    for (auto p : patterns)
      if (glob_match(p, t.id)) {
        out.push_back(t);
        break;
      }
  return out;
}

std::string param_c_type(const Param& p) {
  switch (p.kind) {
    case ParamKind::Tensor: return p.role == TensorRole::Input ? "const kgb_tensor*" : "kgb_tensor*";
    case ParamKind::TensorList: return p.role == TensorRole::Input ? "const kgb_tensor_list*" : "kgb_tensor_list*";
    case ParamKind::ScalarOutput: return "kgb_scalar*";
    case ParamKind::Scalar: break;
  }
  const char* base = "";
  switch (p.scalar_type) {
    case ScalarType::Int64: base = "int64_t"; break;
    case ScalarType::Float64: base = "double"; break;
    case ScalarType::Bool: case ScalarType::Enum: base = "int"; break;
    case ScalarType::Complex: base = "kgb_complex"; break;
    case ScalarType::AtenScalar: base = "kgb_scalar"; break;
    case ScalarType::IntList: base = "kgb_int_list"; break;
  }
  if (p.optional) return std::string("const ") + base + "*";
  return base;
}

std::string entry_argument(const Param& p, const std::string& arg) {
  switch (p.kind) {
    case ParamKind::Tensor: return arg + ".t";
    case ParamKind::TensorList: return arg + ".l";
    case ParamKind::ScalarOutput: return arg + ".out";
    case ParamKind::Scalar: break;
  }
  if (p.optional) return "(" + param_c_type(p) + ")" + arg + ".opt";
  switch (p.scalar_type) {
    case ScalarType::Float64: return arg + ".f";
    case ScalarType::Bool: case ScalarType::Enum: return "(int)" + arg + ".i";
    case ScalarType::Complex: return arg + ".c";
    case ScalarType::AtenScalar: return arg + ".s";
    case ScalarType::IntList: return arg + ".il";
    case ScalarType::Int64: break;
  }
  return arg + ".i";
}

std::string entry_declaration(const Task& task) {
  std::ostringstream os;
  os << "extern \"C\" int " << task.entry << "(";
  for (const auto& p : task.params) os << param_c_type(p) << " " << p.name << ", ";
  os << "kgb_stream stream);";
  return os.str();
}

Result<std::string> bundled_solution(const Task& task, const std::string& solution_file) {
  auto path = task.solution_path(solution_file);
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("solution.missing", task.id + " has no bundled solution " + path.string());
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace kgb
