#include "kgb/task_text.h"

#include <cmath>
#include <sstream>

#include "kgb/case.h"
#include "kgb/expr.h"

namespace kgb {
namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string dtype_names(const std::vector<DType>& dtypes) {
  std::vector<std::string> names;
  for (DType d : dtypes) names.emplace_back(dtype_name(d));
  return join(names, ", ");
}

// Whole numbers print exactly (a 1048576-element dimension, not 1.04858e+06);
// others as the stream's default (6 significant digits).
std::string format_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 0x1p53) return std::to_string(static_cast<int64_t>(v));
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string role_text(const Param& p) {
  switch (p.role) {
    case TensorRole::Input: return "input";
    case TensorRole::Output: return "output (pre-allocated)";
    case TensorRole::InOut: return "in-place (read and written)";
    case TensorRole::View:
      if (p.alias == AliasRule::Required)
        return "view output: describe a view of '" + p.alias_of + "' (set data, rank, sizes, strides, storage_offset); no copy";
      if (p.alias == AliasRule::WhenPossible)
        return "view-or-copy output: where ATen returns a view of '" + p.alias_of +
               "', describe that view; elsewhere write the values into the pre-allocated output and leave its descriptor as given";
      return "view-or-copy output: where a view of '" + p.alias_of +
             "' exists you may describe it or write the values into the pre-allocated output; elsewhere write the values";
    case TensorRole::Scratch:
      return std::string("scratch (") + (p.scratch_zero_init ? "all zero on entry" : "garbage on entry") +
             (p.scratch_zero_after ? ", must be all zero again on return" : ", never compared") + ")";
  }
  return "?";
}

std::string scalar_text(const Param& p) {
  switch (p.scalar_type) {
    case ScalarType::Int64: return "int64_t";
    case ScalarType::Float64: return "double";
    case ScalarType::Bool: return "int (bool)";
    case ScalarType::Complex: return "kgb_complex";
    case ScalarType::AtenScalar: return "kgb_scalar (an ATen Scalar: dtype KGB_BOOL/KGB_I64 in v.i, KGB_F64 in v.f, KGB_C128 in v.c)";
    case ScalarType::IntList: return "kgb_int_list";
    case ScalarType::Enum: {
      std::vector<std::string> values;
      for (const auto& [name, number] : p.enum_values) values.push_back(name + " = " + std::to_string(number));
      return "int enum (" + join(values, ", ") + ")";
    }
  }
  return "?";
}

std::string shape_text(const Param& p) {
  if (!p.shape_from.empty()) return "shape given by '" + p.shape_from + "'";
  return "shape [" + join(p.shape, ", ") + "]";
}

}  // namespace

std::string describe_params(const Task& task) {
  std::ostringstream os;
  for (const auto& p : task.params) {
    os << "- " << p.name << ": ";
    switch (p.kind) {
      case ParamKind::Tensor:
        os << role_text(p) << " tensor" << (p.optional ? " or NULL (None)" : "") << ", dtype " << p.dtype << ", " << shape_text(p);
        if (p.host_resident) os << ", in host memory (pinned on GPUs)";
        break;
      case ParamKind::TensorList:
        os << (p.role == TensorRole::Input ? "input" : p.role == TensorRole::View ? "view" : p.role == TensorRole::Output ? "output" : "in-place")
           << " tensor list of count " << p.count << ", dtype " << p.dtype;
        if (!p.shape.empty()) os << ", items of " << shape_text(p);
        if (p.nullable) os << "; items may be NULL (None)";
        if (p.pointer_array) os << "; device_data holds the items' data pointers in device memory";
        if (p.role == TensorRole::View)  // the items have no storage: each describes a view
          os << "; every item is a view of '" << p.alias_of << "' to describe (set its data, rank, sizes, strides, storage_offset); no copy";
        else
          os << "; items lie in one allocation in no particular order, never back to back";
        break;
      case ParamKind::ScalarOutput: os << "kgb_scalar* result in host memory, complete when the entry returns"; break;
      case ParamKind::Scalar:
        os << scalar_text(p) << " scalar" << (p.optional ? " passed by pointer, NULL for None" : "");
        if (p.random) os << " (a random seed chosen by the harness for every call)";
        break;
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
    if (auto it = c.scalars.find(n); it != c.scalars.end()) return it->second.number();
    return std::nullopt;
  };
  ctx.int_list = [&c](std::string_view name) -> const std::vector<int64_t>* {
    auto it = c.scalars.find(std::string(name));
    return it != c.scalars.end() && it->second.kind == ScalarValue::Kind::IntList ? &it->second.list : nullptr;
  };
  auto dims_text = [&](const std::vector<std::string>& shape) {
    std::vector<std::string> dims;
    for (const auto& d : shape) {
      auto v = evaluate_expression(d, ctx);
      dims.push_back(v ? format_number(*v) : d);
    }
    return "[" + join(dims, ", ") + "]";
  };
  auto layout_text = [](const Layout& l) {
    std::string s = " " + l.kind;
    if (l.pad) s += "+pad" + std::to_string(l.pad);
    if (l.kind == "step") s += std::to_string(l.step);
    if (l.kind == "strides") {
      std::vector<std::string> st;
      for (auto x : l.strides) st.push_back(std::to_string(x));
      s += "(" + join(st, ",") + ")";
    }
    if (l.offset) s += "+offset" + std::to_string(l.offset);
    if (!l.like.empty()) s += " like " + l.like;
    if (l.conj) s += " conj-bit";
    if (l.neg) s += " neg-bit";
    return s;
  };
  std::vector<std::string> parts;
  for (const auto& p : task.params) {
    if (p.kind == ParamKind::Tensor) {
      auto it = c.shapes.find(p.name);
      if (it != c.shapes.end() && !it->second) {
        parts.push_back(p.name + " None");
        continue;
      }
      std::string s = p.name + " " + (it != c.shapes.end() ? dims_text(*it->second) : p.shape_from.empty() ? dims_text(p.shape) : "[" + p.shape_from + "]");
      if (auto l = c.layouts.find(p.name); l != c.layouts.end()) s += layout_text(l->second);
      if (auto a = c.aliases.find(p.name); a != c.aliases.end()) s += " on " + a->second + "'s storage";
      parts.push_back(s);
    } else if (p.kind == ParamKind::TensorList) {
      auto count = evaluate_expression(p.count, ctx);
      std::string s = p.name + " " + (count ? format_number(*count) : p.count) + " x ";
      auto lc = c.lists.find(p.name);
      if (lc != c.lists.end() && !lc->second.shapes.empty()) {
        std::vector<std::string> items;
        for (const auto& item : lc->second.shapes) items.push_back(item ? dims_text(*item) : "None");
        s = p.name + " {" + join(items, ", ") + "}";
      } else {
        s += dims_text(lc != c.lists.end() && !lc->second.shape.empty() ? lc->second.shape : p.shape);
      }
      if (lc != c.lists.end()) {
        if (lc->second.layout) s += layout_text(*lc->second.layout);
        if (!lc->second.layouts.empty()) s += " (per-item layouts)";
        if (lc->second.repeat) s += " (every item the same tensor)";
      }
      parts.push_back(s);
    } else if (p.kind == ParamKind::Scalar && !p.random) {
      parts.push_back(p.name + "=" + c.scalars.at(p.name).to_string());
    }
  }
  std::vector<std::string> dtypes;
  for (const auto& b : case_dtypes(task, c)) dtypes.push_back(binding_label(b));
  std::string line = c.name + ": " + join(parts, "; ");
  if (!task.type_variables.empty()) line += " (" + join(dtypes, ", ") + ")";
  if (c.deterministic && !*c.deterministic) line += " [nondeterministic allowed]";
  return line;
}

std::string describe_constraints(const Task& task) {
  std::ostringstream os;
  if (task.check == CheckKind::Statistical) {
    os << "- Checked statistically: outputs in the support";
    if (task.statistical.support_is_interval) {
      os << " [" << (task.statistical.support_min ? format_number(*task.statistical.support_min) : "-inf") << ", "
         << (task.statistical.support_max ? format_number(*task.statistical.support_max) : "inf") << "]"
         << (task.statistical.support_integer ? " (integers)" : "");
    } else if (!task.statistical.support.empty()) {
      std::vector<std::string> s;
      for (double v : task.statistical.support) s.push_back(format_number(v));
      os << " {" << join(s, ", ") << "}";
    }
    os << ", sample mean within " << task.statistical.mean_sigmas << " standard errors of " << task.statistical.mean
       << "; a different seed must change the output.\n";
  } else if (task.check == CheckKind::Sort) {
    os << "- '" << task.order.values << "' must match exactly; '" << task.order.indices
       << "' is checked by consistency (input at the index equals the value; each slice a permutation).\n";
  } else if (task.check == CheckKind::Topk) {
    os << "- '" << task.order.values << "' must hold exactly the selected values; '" << task.order.indices
       << "' must be distinct positions with input[index] == value; any order among ties.\n";
  } else if (task.check == CheckKind::Custom) {
    os << "- Checked by a task-specific rule (see the description); values elsewhere as stated there.\n";
  }
  if (task.check != CheckKind::Statistical) {
    os << "- Tolerance: |got - expected| <= atol + rtol * |expected| with rtol f16 1e-3, bf16 1.6e-2, f32/f64 1e-5, "
          "c64 1.3e-6, c128 1e-6, fp8 one step (integers exact)";
    for (const auto& [dt, r] : task.tolerance.rtol) os << ", " << dtype_name(dt) << " overridden to " << r;
    for (const auto& [dt, u] : task.tolerance.max_ulp) os << ", " << dtype_name(dt) << " within " << u << " representable step(s)";
    os << "; atol = " << task.tolerance.atol << " x (" << task.tolerance.reduction << "). NaN and Inf must match in position.\n";
  }
  for (const auto& [name, rule] : task.output_rules) {
    if (rule.mode == OutputRule::Mode::None) os << "- '" << name << "' is not compared.\n";
    else if (rule.mode == OutputRule::Mode::Bitwise) os << "- '" << name << "' must match bit for bit.\n";
  }
  if (task.deterministic) os << "- Deterministic: the same inputs twice must give bitwise the same outputs (unless a case says otherwise).\n";
  os << "- Inputs must not be modified; outputs are pre-filled with garbage; write every element of each output view and "
        "nothing outside it.\n";
  os << "- Tensors may be non-contiguous: always honour sizes, strides (in elements, possibly zero or negative) and "
        "storage_offset.\n";
  if (task.device_work == DeviceWork::Copy) os << "- Device work may be copy or fill commands (memcpy/memset, buffer copies) as well as kernels.\n";
  if (task.device_work == DeviceWork::None) os << "- No device work is required: the result is metadata.\n";
  if (task.timing == TimingMode::Host) os << "- Timed by the host clock around the call: the entry returns only when its result is complete.\n";
  if (task.timing == TimingMode::None) os << "- Not timed: only correctness counts.\n";
  os << "- No library call that does the work for you";
  if (!task.banned_apis.empty()) os << " (banned here: " << join(task.banned_apis, ", ") << ")";
  os << "; no global, static or thread_local mutable state (scratch memory: a local array or an allocation freed "
        "before returning), no timing calls, no files, processes or environment access.\n";
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
     << task.description << "\n\n";
  const auto entries = task.entries();
  os << "## Entry point" << (entries.size() > 1 ? "s (implement every one; the task passes only when all pass)" : "") << "\n\n```c\n#include \"kgb_kernel.h\"\n";
  for (const Task* e : entries) os << entry_declaration(*e) << "\n";
  os << "```\n\n";
  const std::string h = entries.size() > 1 ? "### " : "## ";
  for (const Task* e : entries) {
    if (entries.size() > 1) os << "## " << e->entry << (e->overload.empty() ? "" : " (overload " + e->overload + ")") << "\n\n";
    if (e->is_overload && e->description != task.description) os << e->description << "\n\n";
    os << h << "Parameters\n\n" << describe_params(*e) << "\n";
    if (!e->type_variables.empty()) {
      for (const auto& [var, values] : e->type_variables)
        os << "Type variable " << var << ": one of " << dtype_names(values) << ".\n";
      os << "One entry point handles every dtype: read tensor->dtype.\n\n";
    }
    os << h << "Correctness cases\n\n";
    for (const auto& c : e->correctness) os << "- " << describe_case(*e, c) << "\n";
    if (e->timing != TimingMode::None) {
      os << "\n" << h << "Performance cases (timed against the baseline: " << e->baseline << ")\n\n";
      for (const auto& c : e->performance)
        os << "- " << describe_case(*e, c) << (c.cpu ? " [also timed on CPU platforms]" : "") << "\n";
    }
    os << "\n";
  }
  os << "## Constraints\n\n" << describe_constraints(task);
  return os.str();
}

}  // namespace kgb
