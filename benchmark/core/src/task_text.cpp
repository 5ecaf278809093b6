#include "kgb/task_text.h"

#include <sstream>

#include "kgb/expr.h"

namespace kgb {
namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string dtype_list(const Task& task) {
  std::vector<std::string> names;
  for (DType d : task.dtypes) names.emplace_back(dtype_name(d));
  return join(names, ", ");
}

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

std::string describe_params(const Task& task) {
  std::ostringstream os;
  for (const auto& p : task.params) {
    os << "- " << p.name << ": ";
    if (p.kind == ParamKind::Tensor) {
      os << (p.role == TensorRole::Input ? "input" : p.role == TensorRole::Output ? "output (pre-allocated)" : "in-place (read and written)")
         << " tensor, dtype " << p.dtype;
      if (!parse_dtype(p.dtype)) os << " (one of " << dtype_list(task) << ")";
      os << ", shape [" << join(p.shape, ", ") << "]";
    } else {
      os << (p.scalar_type == ScalarType::Int64 ? "int64_t" : p.scalar_type == ScalarType::Float64 ? "double" : "int (bool)")
         << " scalar";
      if (p.random) os << " (a random seed chosen by the harness for every call)";
    }
    if (!p.description.empty()) os << " — " << p.description;
    os << "\n";
  }
  os << "- stream: kgb_stream (" << "the backend queue; issue all device work on it)\n";
  return os.str();
}

std::string describe_case(const Task& task, const Case& c) {
  ExprContext ctx;
  ctx.variable = [&c](std::string_view name) -> std::optional<double> {
    std::string n(name);
    if (auto it = c.dims.find(n); it != c.dims.end()) return static_cast<double>(it->second);
    if (auto it = c.scalars.find(n); it != c.scalars.end()) return it->second;
    return std::nullopt;
  };
  std::vector<std::string> parts;
  for (const auto& p : task.params) {
    if (p.kind == ParamKind::Tensor) {
      const auto& shape = c.shapes.count(p.name) ? c.shapes.at(p.name) : p.shape;
      std::vector<std::string> dims;
      for (const auto& d : shape) {
        auto v = evaluate_expression(d, ctx);
        dims.push_back(v ? format_number(*v) : d);
      }
      std::string s = p.name + " [" + join(dims, ", ") + "]";
      if (auto it = c.layouts.find(p.name); it != c.layouts.end()) {
        const Layout& l = it->second;
        s += " " + l.kind;
        if (l.pad) s += "+pad" + std::to_string(l.pad);
        if (l.kind == "step") s += std::to_string(l.step);
        if (l.kind == "strides") {
          std::vector<std::string> st;
          for (auto x : l.strides) st.push_back(std::to_string(x));
          s += "(" + join(st, ",") + ")";
        }
      }
      parts.push_back(s);
    } else if (!p.random) {
      parts.push_back(p.name + "=" + format_number(c.scalars.at(p.name)));
    }
  }
  std::string dtypes = c.dtypes.empty() ? dtype_list(task) : join(c.dtypes, ", ");
  return c.name + ": " + join(parts, "; ") + (dtypes.empty() ? "" : " (" + dtypes + ")");
}

std::string describe_constraints(const Task& task) {
  std::ostringstream os;
  if (task.check == CheckKind::Statistical) {
    os << "- Checked statistically: outputs in the support";
    if (!task.statistical.support.empty()) {
      std::vector<std::string> s;
      for (double v : task.statistical.support) s.push_back(format_number(v));
      os << " {" << join(s, ", ") << "}";
    }
    os << ", sample mean within " << task.statistical.mean_sigmas << " standard errors of " << task.statistical.mean
       << "; a different seed must change the output.\n";
  } else if (task.check == CheckKind::Sort) {
    os << "- '" << task.sort_values_output << "' must match exactly; '" << task.sort_indices_output
       << "' is checked by consistency (input at the index equals the value; each slice a permutation).\n";
  } else {
    os << "- Tolerance: |got - expected| <= atol + rtol * |expected| with rtol f16 1e-3, bf16 1.6e-2, f32/f64 1e-5 "
          "(integers exact)";
    for (const auto& [dt, r] : task.tolerance.rtol) os << ", " << dtype_name(dt) << " overridden to " << r;
    os << "; atol = " << task.tolerance.atol << " x (" << task.tolerance.reduction
       << "). NaN and Inf must match in position.\n";
  }
  if (task.deterministic) os << "- Deterministic: the same inputs twice must give bitwise the same outputs.\n";
  os << "- Inputs must not be modified; outputs are pre-filled with garbage; write every element of each output view and "
        "nothing outside it.\n";
  os << "- Tensors may be non-contiguous: always honour sizes and strides (in elements).\n";
  os << "- No library call that does the work for you";
  if (!task.banned_apis.empty()) os << " (banned here: " << join(task.banned_apis, ", ") << ")";
  os << "; no global or static mutable state, no timing calls, no files, processes or environment access.\n";
  os << "- Return 0 on success, non-zero for an unsupported input.\n";
  return os.str();
}

std::string render_task_statement(const Task& task, const Platform& platform) {
  std::ostringstream os;
  os << "Task: " << task.id << "\n"
     << "Platform: " << platform.name << "\n"
     << "Language: " << platform.language << "\n"
     << "Hardware: " << platform.hardware << "\n\n"
     << "## " << task.summary << "\n\n"
     << task.description << "\n\n"
     << "## Entry point\n\n```c\n#include \"kgb_kernel.h\"\n" << entry_declaration(task) << "\n```\n\n"
     << "## Parameters\n\n" << describe_params(task) << "\n";
  if (!task.dtypes.empty()) os << "Dtype variants: " << dtype_list(task) << " (one entry point handles all of them; read tensor->dtype).\n\n";
  os << "## Correctness cases\n\n";
  for (const auto& c : task.correctness) os << "- " << describe_case(task, c) << "\n";
  os << "\n## Performance cases (timed against the baseline: " << task.baseline << ")\n\n";
  for (const auto& c : task.performance) os << "- " << describe_case(task, c) << "\n";
  os << "\n## Constraints\n\n" << describe_constraints(task);
  return os.str();
}

}  // namespace kgb
