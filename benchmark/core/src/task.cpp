// spec.json loader. Every problem becomes an Error naming the file, the field
// (as a JSON path) and what was expected; the loader never throws on bad input.
#include "kgb/task.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace kgb {

using nlohmann::json;

const Param* Task::param(std::string_view name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

namespace {

// Collects the context (file, JSON path) for error messages.
class SpecReader {
 public:
  explicit SpecReader(std::filesystem::path file) : file_(std::move(file)) {}

  Error error(const std::string& field, const std::string& what) const {
    return make_error("spec.invalid", file_.string() + ": field '" + field + "': " + what);
  }

  static std::string type_name(const json& j) { return j.type_name(); }

  Result<std::string> string_field(const json& obj, const std::string& key, const std::string& path, bool required,
                                   std::string fallback = "") const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) return error(path + key, "missing; expected a string");
      return fallback;
    }
    if (!it->is_string()) return error(path + key, "expected a string, found " + type_name(*it));
    return it->get<std::string>();
  }

  // A dimension or numeric-expression entry: integer or string.
  Result<std::string> dim_entry(const json& j, const std::string& path) const {
    if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
    if (j.is_string() && !j.get<std::string>().empty()) return j.get<std::string>();
    return error(path, "expected an integer or a dim name, found " + type_name(j));
  }

  Result<std::vector<std::string>> shape(const json& j, const std::string& path) const {
    if (!j.is_array()) return error(path, "expected an array of dims, found " + type_name(j));
    if (j.size() > 8) return error(path, "rank " + std::to_string(j.size()) + " is above the maximum of 8");
    std::vector<std::string> dims;
    for (size_t i = 0; i < j.size(); ++i) {
      auto d = dim_entry(j[i], path + "[" + std::to_string(i) + "]");
      if (!d) return d.error();
      dims.push_back(*d);
    }
    return dims;
  }

  Result<std::string> expression(const json& obj, const std::string& key, const std::string& path,
                                 std::string fallback) const {
    auto it = obj.find(key);
    if (it == obj.end()) return fallback;
    if (it->is_number()) {
      std::ostringstream os;
      os.precision(17);
      os << it->get<double>();
      return os.str();
    }
    if (!it->is_string()) return error(path + key, "expected an expression (string or number), found " + type_name(*it));
    return it->get<std::string>();
  }

  Result<Distribution> distribution(const json& j, const std::string& path) const {
    Distribution d;
    if (!j.is_object()) return error(path, "expected an object like {\"kind\": \"uniform\", \"low\": \"0\", \"high\": \"1\"}");
    auto kind = string_field(j, "kind", path + ".", true);
    if (!kind) return kind.error();
    static const std::set<std::string> kinds{"normal", "uniform", "randint", "bernoulli", "arange", "permutation"};
    if (!kinds.count(*kind)) return error(path + ".kind", "expected one of normal|uniform|randint|bernoulli|arange|permutation, found '" + *kind + "'");
    d.kind = *kind;
    if (d.kind == "randint") {
      d.low = "0";
      d.high = "100";
    }
    auto low = expression(j, "low", path + ".", d.low);
    if (!low) return low.error();
    auto high = expression(j, "high", path + ".", d.high);
    if (!high) return high.error();
    d.low = *low;
    d.high = *high;
    if (j.contains("mean")) {
      if (!j["mean"].is_number()) return error(path + ".mean", "expected a number");
      d.mean = j["mean"].get<double>();
    }
    if (j.contains("stddev")) {
      if (!j["stddev"].is_number()) return error(path + ".stddev", "expected a number");
      d.stddev = j["stddev"].get<double>();
    }
    if (j.contains("special")) {
      if (!j["special"].is_number()) return error(path + ".special", "expected a fraction between 0 and 1");
      d.special_fraction = j["special"].get<double>();
      if (d.special_fraction < 0 || d.special_fraction > 1) return error(path + ".special", "expected a fraction between 0 and 1");
    }
    return d;
  }

  Result<Param> param(const json& j, const std::string& path, const std::vector<std::string>& type_vars) const {
    Param p;
    if (!j.is_object()) return error(path, "expected an object, found " + type_name(j));
    auto name = string_field(j, "name", path + ".", true);
    if (!name) return name.error();
    p.name = *name;
    if (p.name.empty() || !std::all_of(p.name.begin(), p.name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) ||
        std::isdigit(static_cast<unsigned char>(p.name[0])))
      return error(path + ".name", "expected a C identifier, found '" + p.name + "'");
    auto desc = string_field(j, "description", path + ".", false);
    if (!desc) return desc.error();
    p.description = *desc;
    bool is_tensor = j.contains("tensor"), is_scalar = j.contains("scalar");
    if (is_tensor == is_scalar) return error(path, "expected exactly one of \"tensor\" (input|output|inout) or \"scalar\" (int64|float64|bool)");
    if (is_tensor) {
      p.kind = ParamKind::Tensor;
      auto role = string_field(j, "tensor", path + ".", true);
      if (!role) return role.error();
      if (*role == "input") p.role = TensorRole::Input;
      else if (*role == "output") p.role = TensorRole::Output;
      else if (*role == "inout") p.role = TensorRole::InOut;
      else return error(path + ".tensor", "expected input|output|inout, found '" + *role + "'");
      auto dtype = string_field(j, "dtype", path + ".", true);
      if (!dtype) return dtype.error();
      if (!parse_dtype(*dtype) && std::find(type_vars.begin(), type_vars.end(), *dtype) == type_vars.end())
        return error(path + ".dtype", "expected a dtype (bool i8 i32 i64 f16 bf16 f32 f64 c64 c128) or a type variable, found '" + *dtype + "'");
      p.dtype = *dtype;
      if (!j.contains("shape")) return error(path + ".shape", "missing; expected an array of dims");
      auto shape_r = shape(j["shape"], path + ".shape");
      if (!shape_r) return shape_r.error();
      p.shape = *shape_r;
      if (j.contains("dist")) {
        auto d = distribution(j["dist"], path + ".dist");
        if (!d) return d.error();
        p.distribution = *d;
      } else {
        auto dt = parse_dtype(p.dtype);
        if (dt && is_integral(*dt)) {
          p.distribution.kind = *dt == DType::Bool ? "bernoulli" : "randint";
          p.distribution.low = *dt == DType::Bool ? "0" : "-100";
          p.distribution.high = *dt == DType::Bool ? "1" : "101";
        }
      }
    } else {
      p.kind = ParamKind::Scalar;
      auto type = string_field(j, "scalar", path + ".", true);
      if (!type) return type.error();
      if (*type == "int64") p.scalar_type = ScalarType::Int64;
      else if (*type == "float64") p.scalar_type = ScalarType::Float64;
      else if (*type == "bool") p.scalar_type = ScalarType::Bool;
      else return error(path + ".scalar", "expected int64|float64|bool, found '" + *type + "'");
      if (j.contains("random")) {
        if (!j["random"].is_boolean()) return error(path + ".random", "expected true or false");
        p.random = j["random"].get<bool>();
      }
    }
    return p;
  }

  Result<Layout> layout(const json& j, const std::string& path) const {
    Layout l;
    if (!j.is_object()) return error(path, "expected an object like {\"kind\": \"transposed\"}");
    auto kind = string_field(j, "kind", path + ".", false, "contiguous");
    if (!kind) return kind.error();
    static const std::set<std::string> kinds{"contiguous", "transposed", "step", "strides"};
    if (!kinds.count(*kind)) return error(path + ".kind", "expected contiguous|transposed|step|strides, found '" + *kind + "'");
    l.kind = *kind;
    if (j.contains("pad")) {
      if (!j["pad"].is_number_integer() || j["pad"].get<int64_t>() < 0) return error(path + ".pad", "expected a non-negative integer");
      l.pad = j["pad"].get<int64_t>();
    }
    if (j.contains("step")) {
      if (!j["step"].is_number_integer() || j["step"].get<int64_t>() < 1) return error(path + ".step", "expected a positive integer");
      l.step = j["step"].get<int64_t>();
    }
    if (l.kind == "strides") {
      if (!j.contains("strides") || !j["strides"].is_array()) return error(path + ".strides", "expected an array of element strides");
      for (const auto& s : j["strides"]) {
        if (!s.is_number_integer() || s.get<int64_t>() < 0) return error(path + ".strides", "expected non-negative integers");
        l.strides.push_back(s.get<int64_t>());
      }
    }
    return l;
  }

  Result<Case> one_case(const json& j, const std::string& path, const Task& task) const {
    Case c;
    if (!j.is_object()) return error(path, "expected an object, found " + type_name(j));
    auto name = string_field(j, "name", path + ".", true);
    if (!name) return name.error();
    c.name = *name;
    if (j.contains("dims")) {
      if (!j["dims"].is_object()) return error(path + ".dims", "expected an object of dim name to size");
      for (auto& [k, v] : j["dims"].items()) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0) return error(path + ".dims." + k, "expected a non-negative integer");
        c.dims[k] = v.get<int64_t>();
      }
    }
    if (j.contains("shapes")) {
      if (!j["shapes"].is_object()) return error(path + ".shapes", "expected an object of tensor name to shape");
      for (auto& [k, v] : j["shapes"].items()) {
        const Param* p = task.param(k);
        if (!p || p->kind != ParamKind::Tensor) return error(path + ".shapes." + k, "no tensor parameter named '" + k + "'");
        auto s = shape(v, path + ".shapes." + k);
        if (!s) return s.error();
        c.shapes[k] = *s;
      }
    }
    if (j.contains("layouts")) {
      if (!j["layouts"].is_object()) return error(path + ".layouts", "expected an object of tensor name to layout");
      for (auto& [k, v] : j["layouts"].items()) {
        const Param* p = task.param(k);
        if (!p || p->kind != ParamKind::Tensor) return error(path + ".layouts." + k, "no tensor parameter named '" + k + "'");
        auto l = layout(v, path + ".layouts." + k);
        if (!l) return l.error();
        c.layouts[k] = *l;
      }
    }
    if (j.contains("scalars")) {
      if (!j["scalars"].is_object()) return error(path + ".scalars", "expected an object of scalar name to value");
      for (auto& [k, v] : j["scalars"].items()) {
        const Param* p = task.param(k);
        if (!p || p->kind != ParamKind::Scalar) return error(path + ".scalars." + k, "no scalar parameter named '" + k + "'");
        if (v.is_boolean()) c.scalars[k] = v.get<bool>() ? 1.0 : 0.0;
        else if (v.is_number()) c.scalars[k] = v.get<double>();
        else return error(path + ".scalars." + k, "expected a number or a boolean, found " + type_name(v));
      }
    }
    for (const auto& p : task.params) {
      if (p.kind == ParamKind::Scalar && !p.random && !c.scalars.count(p.name))
        return error(path + ".scalars." + p.name, "missing; every non-random scalar needs a value in every case");
    }
    if (j.contains("dtypes")) {
      if (!j["dtypes"].is_array()) return error(path + ".dtypes", "expected an array of dtype names");
      for (const auto& d : j["dtypes"]) {
        if (!d.is_string() || !parse_dtype(d.get<std::string>()))
          return error(path + ".dtypes", "expected dtype names, found " + d.dump());
        auto dt = *parse_dtype(d.get<std::string>());
        if (!task.dtypes.empty() && std::find(task.dtypes.begin(), task.dtypes.end(), dt) == task.dtypes.end())
          return error(path + ".dtypes", "dtype " + d.get<std::string>() + " is not a variant of the task");
        c.dtypes.push_back(d.get<std::string>());
      }
    }
    if (j.contains("expect_zero")) {
      if (!j["expect_zero"].is_boolean()) return error(path + ".expect_zero", "expected true or false");
      c.expect_zero = j["expect_zero"].get<bool>();
    }
    return c;
  }

  std::filesystem::path file_;
};

std::string entry_name_for(const std::string& id) {
  std::string e = "kgb_";
  for (char c : id) e += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return e;
}

}  // namespace

Result<Task> load_task_file(const std::filesystem::path& spec_file) {
  SpecReader r(spec_file);
  std::ifstream in(spec_file);
  if (!in) return make_error("spec.unreadable", spec_file.string() + ": cannot be read");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    return make_error("spec.json", spec_file.string() + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) return r.error("(top level)", "expected an object");

  Task t;
  t.folder = spec_file.parent_path();
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
  t.entry = entry_name_for(t.id);

  for (auto [key, target] : {std::pair{"summary", &t.summary}, std::pair{"description", &t.description}}) {
    auto v = r.string_field(j, key, "", true);
    if (!v) return v.error();
    *target = *v;
  }

  if (j.contains("type_variables")) {
    const json& tv = j["type_variables"];
    if (!tv.is_object()) return r.error("type_variables", "expected an object like {\"T\": [\"f32\", \"f64\"]}");
    if (tv.size() > 1) return r.error("type_variables", "at most one type variable is supported");
    for (auto& [name, values] : tv.items()) {
      if (!values.is_array() || values.empty()) return r.error("type_variables." + name, "expected a non-empty array of dtype names");
      t.type_variables.push_back(name);
      for (const auto& v : values) {
        auto dt = v.is_string() ? parse_dtype(v.get<std::string>()) : std::nullopt;
        if (!dt) return r.error("type_variables." + name, "expected dtype names, found " + v.dump());
        t.dtypes.push_back(*dt);
      }
    }
  }

  if (!j.contains("params") || !j["params"].is_array() || j["params"].empty())
    return r.error("params", "missing or empty; expected an array of parameters");
  std::set<std::string> names;
  for (size_t i = 0; i < j["params"].size(); ++i) {
    auto p = r.param(j["params"][i], "params[" + std::to_string(i) + "]", t.type_variables);
    if (!p) return p.error();
    if (!names.insert(p->name).second) return r.error("params[" + std::to_string(i) + "].name", "duplicate name '" + p->name + "'");
    if (p->name == "stream") return r.error("params[" + std::to_string(i) + "].name", "'stream' is reserved (appended automatically)");
    t.params.push_back(std::move(*p));
  }
  bool has_output = std::any_of(t.params.begin(), t.params.end(), [](const Param& p) {
    return p.kind == ParamKind::Tensor && p.role != TensorRole::Input;
  });
  if (!has_output) return r.error("params", "no output or inout tensor");
  if (t.params.size() > 32) return r.error("params", "more than 32 parameters");

  for (auto [key, target] : {std::pair{"correctness", &t.correctness}, std::pair{"performance", &t.performance}}) {
    if (!j.contains(key) || !j[key].is_array()) return r.error(key, "missing; expected an array of cases");
    std::set<std::string> case_names;
    for (size_t i = 0; i < j[key].size(); ++i) {
      std::string path = std::string(key) + "[" + std::to_string(i) + "]";
      auto c = r.one_case(j[key][i], path, t);
      if (!c) return c.error();
      if (!case_names.insert(c->name).second) return r.error(path + ".name", "duplicate case name '" + c->name + "'");
      target->push_back(std::move(*c));
    }
  }
  if (t.correctness.empty()) return r.error("correctness", "expected at least one case");

  if (j.contains("tolerance")) {
    const json& tol = j["tolerance"];
    if (!tol.is_object()) return r.error("tolerance", "expected an object");
    if (tol.contains("rtol")) {
      if (!tol["rtol"].is_object()) return r.error("tolerance.rtol", "expected an object of dtype to rtol");
      for (auto& [k, v] : tol["rtol"].items()) {
        auto dt = parse_dtype(k);
        if (!dt || !v.is_number()) return r.error("tolerance.rtol." + k, "expected a dtype name mapped to a number");
        t.tolerance.rtol[*dt] = v.get<double>();
      }
    }
    if (tol.contains("atol")) {
      if (!tol["atol"].is_number()) return r.error("tolerance.atol", "expected a number");
      t.tolerance.atol = tol["atol"].get<double>();
    }
    auto red = r.expression(tol, "reduction", "tolerance.", "1");
    if (!red) return red.error();
    t.tolerance.reduction = *red;
  }

  if (j.contains("check")) {
    const json& c = j["check"];
    std::string kind = c.is_string() ? c.get<std::string>() : (c.is_object() && c.contains("kind") && c["kind"].is_string() ? c["kind"].get<std::string>() : "");
    if (kind == "elementwise") {
      t.check = CheckKind::Elementwise;
    } else if (kind == "sort") {
      t.check = CheckKind::Sort;
      for (auto [key, target] : {std::pair{"values", &t.sort_values_output}, std::pair{"indices", &t.sort_indices_output}, std::pair{"dim", &t.sort_dim_scalar}}) {
        auto v = r.string_field(c, key, "check.", true);
        if (!v) return v.error();
        *target = *v;
      }
      const Param* values = t.param(t.sort_values_output);
      const Param* indices = t.param(t.sort_indices_output);
      const Param* dim = t.param(t.sort_dim_scalar);
      if (!values || values->kind != ParamKind::Tensor || values->role == TensorRole::Input) return r.error("check.values", "expected the name of an output tensor");
      if (!indices || indices->kind != ParamKind::Tensor || indices->role == TensorRole::Input) return r.error("check.indices", "expected the name of an output tensor");
      if (!dim || dim->kind != ParamKind::Scalar) return r.error("check.dim", "expected the name of a scalar parameter");
    } else if (kind == "statistical") {
      t.check = CheckKind::Statistical;
      if (c.contains("support")) {
        if (!c["support"].is_array()) return r.error("check.support", "expected an array of numbers");
        for (const auto& v : c["support"]) {
          if (!v.is_number()) return r.error("check.support", "expected numbers");
          t.statistical.support.push_back(v.get<double>());
        }
      }
      auto mean = r.expression(c, "mean", "check.", "0");
      if (!mean) return mean.error();
      auto var = r.expression(c, "variance", "check.", "1");
      if (!var) return var.error();
      t.statistical.mean = *mean;
      t.statistical.variance = *var;
      if (c.contains("sigmas")) {
        if (!c["sigmas"].is_number()) return r.error("check.sigmas", "expected a number");
        t.statistical.mean_sigmas = c["sigmas"].get<double>();
      }
    } else {
      return r.error("check", "expected \"elementwise\", {\"kind\": \"sort\", ...} or {\"kind\": \"statistical\", ...}");
    }
  }

  if (j.contains("deterministic")) {
    if (!j["deterministic"].is_boolean()) return r.error("deterministic", "expected true or false");
    t.deterministic = j["deterministic"].get<bool>();
  }
  for (auto [key, target] : {std::pair{"flops", &t.flops}, std::pair{"bytes", &t.bytes}}) {
    auto v = r.expression(j, key, "", "0");
    if (!v) return v.error();
    *target = *v;
  }
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

  // Type variables must be bound: a task that uses T needs variants.
  for (const auto& p : t.params)
    if (p.kind == ParamKind::Tensor && !parse_dtype(p.dtype) && t.dtypes.empty())
      return r.error("type_variables", "parameter '" + p.name + "' uses '" + p.dtype + "' but no variants are given");
  return t;
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

std::string entry_declaration(const Task& task) {
  std::ostringstream os;
  os << "extern \"C\" int " << task.entry << "(";
  for (const auto& p : task.params) {
    if (p.kind == ParamKind::Tensor) os << (p.role == TensorRole::Input ? "const kgb_tensor* " : "kgb_tensor* ");
    else if (p.scalar_type == ScalarType::Int64) os << "int64_t ";
    else if (p.scalar_type == ScalarType::Float64) os << "double ";
    else os << "int ";
    os << p.name << ", ";
  }
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
