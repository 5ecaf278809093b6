#include "kgb/case.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

#include "kgb/expr.h"
#include "kgb/random.h"

namespace kgb {
namespace {

std::optional<DType> resolve_dtype(const Task& task, const Param& p, DType bound) {
  if (auto d = parse_dtype(p.dtype)) return d;
  if (std::find(task.type_variables.begin(), task.type_variables.end(), p.dtype) != task.type_variables.end()) return bound;
  return std::nullopt;
}

ExprContext context_for(const CaseInstance& inst) {
  ExprContext ctx;
  ctx.variable = [&inst](std::string_view name) -> std::optional<double> {
    std::string n(name);
    if (n == "elem") return static_cast<double>(dtype_size(inst.dtype));
    if (auto it = inst.spec->dims.find(n); it != inst.spec->dims.end()) return static_cast<double>(it->second);
    if (auto it = inst.scalars.find(n); it != inst.scalars.end()) return it->second;
    return std::nullopt;
  };
  ctx.tensor = [&inst](std::string_view name) -> const HostTensor* {
    auto it = inst.tensors.find(std::string(name));
    return it == inst.tensors.end() ? nullptr : &it->second;
  };
  return ctx;
}

struct Geometry {
  std::vector<int64_t> sizes, strides;
  int64_t storage = 0;
};

Result<Geometry> geometry_for(const std::vector<int64_t>& sizes, const Layout& layout, const std::string& where) {
  Geometry g;
  g.sizes = sizes;
  int r = static_cast<int>(sizes.size());
  g.strides.assign(r, 0);
  if (layout.kind == "strides") {
    if (static_cast<int>(layout.strides.size()) != r)
      return make_error("case.layout", where + ": explicit strides have rank " + std::to_string(layout.strides.size()) +
                                           ", the tensor has rank " + std::to_string(r));
    g.strides = layout.strides;
  } else {
    // Storage order: innermost dimension first.
    std::vector<int> order(r);
    std::iota(order.begin(), order.end(), 0);
    if (layout.kind != "transposed") std::reverse(order.begin(), order.end());
    int64_t extent = 1;
    for (int k = 0; k < r; ++k) {
      int d = order[k];
      if (k == 0) {
        int64_t step = layout.kind == "step" ? layout.step : 1;
        g.strides[d] = step;
        extent = std::max<int64_t>(sizes[d], 1) * step + layout.pad;
      } else {
        g.strides[d] = extent;
        extent *= std::max<int64_t>(sizes[d], 1);
      }
    }
  }
  int64_t numel = 1;
  for (auto s : sizes) numel *= s;
  if (numel == 0) {
    g.storage = 0;
  } else {
    int64_t last = 0;
    for (int d = 0; d < r; ++d) last += (sizes[d] - 1) * g.strides[d];
    g.storage = last + 1;
  }
  return g;
}

// Values outside a view (gaps of padded or stepped storage) get a loud
// pattern, so a kernel that ignores the strides reads garbage.
void fill_gaps(HostTensor& t, std::mt19937_64& rng) {
  int64_t n = t.storage_elements();
  if (n == t.numel()) return;
  const std::vector<char> in_view = storage_in_view(t);
  HostTensor whole(t.dtype(), {n}, {1}, 0);
  whole.storage().swap(t.storage());
  const bool floating = is_floating(t.dtype()) || is_complex(t.dtype());
  for (int64_t e = 0; e < n; ++e) {
    if (in_view[static_cast<size_t>(e)]) continue;
    if (floating) whole.set_at(e, std::numeric_limits<double>::quiet_NaN());
    else whole.set_int_at(e, static_cast<int64_t>(rng() % 97) + 31);
  }
  whole.storage().swap(t.storage());
}

// Every chunk of a tensor gets its own random stream, seeded from the
// tensor's seed and the chunk number, so chunks fill in parallel with the same
// result on any number of cores.
// Fills elements [0, numel) of t chunk by chunk: value(engine) gives the next
// value of a chunk, store(element offset, value) writes it.
template <class Value, class Store>
void fill_chunked(HostTensor& t, uint64_t tensor_seed, Value value, Store store) {
  parallel_chunks(t.numel(), [&](int64_t first, int64_t last) {
    SplitMix64 seeder{tensor_seed ^ static_cast<uint64_t>(first / kParallelChunk)};
    SplitMix64 engine{seeder()};
    auto next = value;  // distributions keep state: one copy per chunk
    OffsetWalker w(t, first);
    for (int64_t i = first; i < last; ++i, w.next()) store(w.offset(), next(engine));
  }, t.elements_disjoint());
}

Status fill_input(HostTensor& t, const Param& p, const ExprContext& ctx, std::mt19937_64& rng, const std::string& where) {
  const Distribution& d = p.distribution;
  int64_t n = t.numel();
  auto bound = [&](const std::string& e) -> Result<double> {
    auto v = evaluate_expression(e, ctx);
    if (!v) return make_error("case.dist", where + ": " + v.error().message);
    return v;
  };
  const uint64_t tensor_seed = rng();
  const bool complex = is_complex(t.dtype());
  auto store_real = [&t](int64_t e, double v) { t.set_at(e, v); };
  auto store_int = [&t](int64_t e, int64_t v) { t.set_int_at(e, v); };
  auto store_complex = [&t](int64_t e, std::complex<double> v) {
    // set_at writes the real part and zeroes the imaginary one; then the imaginary part.
    t.set_at(e, v.real());
    auto* base = t.data();
    if (t.dtype() == DType::C64) {
      float im = static_cast<float>(v.imag());
      std::memcpy(base + (2 * e + 1) * sizeof(float), &im, sizeof im);
    } else {
      double im = v.imag();
      std::memcpy(base + (2 * e + 1) * sizeof(double), &im, sizeof im);
    }
  };
  if (d.kind == "normal") {
    auto normal = [mean = d.mean, stddev = d.stddev](SplitMix64& g) { return mean + stddev * standard_normal(g); };
    if (complex) {
      fill_chunked(t, tensor_seed, [normal](SplitMix64& g) { return std::complex<double>(normal(g), normal(g)); }, store_complex);
    } else if (is_integral(t.dtype())) {
      fill_chunked(t, tensor_seed, [normal](SplitMix64& g) { return std::llround(normal(g)); }, store_int);
    } else {
      fill_chunked(t, tensor_seed, normal, store_real);
    }
  } else if (d.kind == "uniform") {
    auto lo = bound(d.low), hi = bound(d.high);
    if (!lo) return lo.error();
    if (!hi) return hi.error();
    std::uniform_real_distribution<double> dist(*lo, *hi);
    if (complex) fill_chunked(t, tensor_seed, [dist](SplitMix64& g) mutable { return std::complex<double>(dist(g), dist(g)); }, store_complex);
    else fill_chunked(t, tensor_seed, [dist](SplitMix64& g) mutable { return dist(g); }, store_real);
  } else if (d.kind == "randint") {
    auto lo = bound(d.low), hi = bound(d.high);
    if (!lo) return lo.error();
    if (!hi) return hi.error();
    int64_t l = static_cast<int64_t>(*lo), h = static_cast<int64_t>(*hi);
    if (h <= l && n > 0) return make_error("case.dist", where + ": randint range [" + std::to_string(l) + ", " + std::to_string(h) + ") is empty");
    std::uniform_int_distribution<int64_t> dist(l, std::max(l, h - 1));
    fill_chunked(t, tensor_seed, [dist](SplitMix64& g) mutable { return dist(g); }, store_int);
  } else if (d.kind == "bernoulli") {
    fill_chunked(t, tensor_seed, [](SplitMix64& g) { return static_cast<int64_t>(g() >> 63); }, store_int);
  } else if (d.kind == "arange") {
    OffsetWalker w(t, 0);
    for (int64_t i = 0; i < n; ++i, w.next()) t.set_int_at(w.offset(), i);
  } else if (d.kind == "permutation") {
    std::vector<int64_t> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    from_ints(t, perm);
  }
  if (d.special_fraction > 0 && is_floating(t.dtype()) && n > 0) {
    std::uniform_int_distribution<int64_t> pick(0, n - 1);
    int64_t k = std::max<int64_t>(1, static_cast<int64_t>(d.special_fraction * static_cast<double>(n)));
    const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity()};
    for (int64_t j = 0; j < k; ++j) t.set(pick(rng), specials[j % 3]);
  }
  fill_gaps(t, rng);
  return Ok{};
}

double default_rtol(DType t) {
  switch (t) {
    case DType::F16: return 1e-3;
    case DType::BF16: return 1.6e-2;
    case DType::F32: case DType::F64: return 1e-5;
    case DType::C64: return 1.3e-6;
    case DType::C128: return 1e-6;
    case DType::F8E4M3FN: return 0.125;  // one unit in the last place
    case DType::F8E5M2: return 0.25;
    default: return 0;
  }
}

std::string format_index(const std::vector<int64_t>& idx) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < idx.size(); ++i) os << (i ? ", " : "") << idx[i];
  os << "]";
  return os.str();
}

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void record_mismatch(CaseCheck& c, const std::string& output, const HostTensor& expected, const HostTensor& got,
                     int64_t i) {
  if (c.mismatches++ == 0) {
    c.output = output;
    c.first_bad_index = got.unravel(i);
    c.expected = format_element(expected, i);
    c.got = format_element(got, i);
  }
}

// What one chunk of an elementwise comparison found.
struct ChunkCheck {
  int64_t checked = 0, mismatches = 0;
  double max_abs_error = 0, max_rel_error = 0;
  int64_t first_bad = -1;  // logical index
  std::string status;      // of the first bad element
};

void check_elementwise(const CaseInstance& inst, const std::string& name, const HostTensor& expected,
                       const HostTensor& got, double atol, CaseCheck& c) {
  const Task& task = *inst.task;
  DType dt = got.dtype();
  double rtol = default_rtol(dt);
  if (auto it = task.tolerance.rtol.find(dt); it != task.tolerance.rtol.end()) rtol = it->second;
  const bool exact = is_integral(dt), complex = is_complex(dt);
  const int64_t n = got.numel();
  std::vector<ChunkCheck> chunks(static_cast<size_t>((n + kParallelChunk - 1) / kParallelChunk));
  parallel_chunks(n, [&](int64_t first, int64_t last) {
    ChunkCheck& k = chunks[static_cast<size_t>(first / kParallelChunk)];
    auto bad_at = [&k](int64_t i, const char* status) {
      if (k.mismatches++ == 0) {
        k.first_bad = i;
        k.status = status;
      }
    };
    OffsetWalker we(expected, first), wg(got, first);
    for (int64_t i = first; i < last; ++i, we.next(), wg.next()) {
      ++k.checked;
      if (exact) {
        int64_t ev = expected.get_int_at(we.offset()), gv = got.get_int_at(wg.offset());
        if (ev != gv) {
          bad_at(i, "mismatch");
          k.max_abs_error = std::max(k.max_abs_error, std::fabs(static_cast<double>(ev - gv)));
        }
        continue;
      }
      for (int part = 0; part < (complex ? 2 : 1); ++part) {
        double ev, gv;
        if (!complex) {
          ev = expected.get_at(we.offset());
          gv = got.get_at(wg.offset());
        } else {
          std::complex<double> e = expected.get_complex(i), g = got.get_complex(i);
          ev = part ? e.imag() : e.real();
          gv = part ? g.imag() : g.real();
        }
        if (std::isnan(ev) || std::isnan(gv) || std::isinf(ev) || std::isinf(gv)) {
          if (!same_value(ev, gv)) {
            bad_at(i, "nan-inf-mismatch");
            break;
          }
          continue;
        }
        double abs_err = std::fabs(gv - ev);
        k.max_abs_error = std::max(k.max_abs_error, abs_err);
        if (ev != 0) k.max_rel_error = std::max(k.max_rel_error, abs_err / std::fabs(ev));
        if (abs_err > atol + rtol * std::fabs(ev)) {
          bad_at(i, "mismatch");
          break;
        }
      }
    }
  });
  // Merged in index order: the first bad element is reported, as a serial scan would.
  for (const ChunkCheck& k : chunks) {
    c.checked += k.checked;
    c.max_abs_error = std::max(c.max_abs_error, k.max_abs_error);
    c.max_rel_error = std::max(c.max_rel_error, k.max_rel_error);
    if (k.mismatches == 0) continue;
    if (c.mismatches == 0) c.status = k.status;
    record_mismatch(c, name, expected, got, k.first_bad);
    c.mismatches += k.mismatches - 1;
  }
}

void check_sort(const CaseInstance& inst, const std::map<std::string, HostTensor>& expected,
                const std::map<std::string, HostTensor>& got, CaseCheck& c) {
  const Task& task = *inst.task;
  const HostTensor& ev = expected.at(task.sort_values_output);
  const HostTensor& gv = got.at(task.sort_values_output);
  const HostTensor& gi = got.at(task.sort_indices_output);
  // The sorted input: the first input tensor, as sent (a kernel that changed
  // it fails the input-mutation check).
  const HostTensor* input = nullptr;
  for (const auto& p : task.params)
    if (p.kind == ParamKind::Tensor && p.role == TensorRole::Input) {
      input = &inst.tensors.at(p.name);
      break;
    }
  for (int64_t i = 0; i < gv.numel(); ++i) {
    ++c.checked;
    if (!same_value(ev.get(i), gv.get(i))) {
      if (c.mismatches == 0) c.status = "mismatch";
      record_mismatch(c, task.sort_values_output, ev, gv, i);
    }
  }
  if (c.mismatches || !input || gv.numel() == 0) return;
  int rank = gi.rank();
  int dim = static_cast<int>(std::llround(inst.scalars.at(task.sort_dim_scalar)));
  if (rank == 0) return;
  if (dim < 0) dim += rank;
  int64_t len = gi.sizes()[dim];
  std::vector<char> seen(static_cast<size_t>(len));
  // Walk every slice along `dim`: indices in range, a permutation, and
  // input[index] == value at every position.
  for (int64_t i = 0; i < gi.numel(); ++i) {
    auto idx = gi.unravel(i);
    if (idx[dim] != 0) continue;
    std::fill(seen.begin(), seen.end(), 0);
    for (int64_t k = 0; k < len; ++k) {
      idx[dim] = k;
      int64_t lin = 0;
      for (int d = 0; d < rank; ++d) lin = lin * gi.sizes()[d] + idx[d];
      int64_t j = gi.get_int(lin);
      bool bad = j < 0 || j >= len || seen[static_cast<size_t>(j)];
      if (!bad) {
        seen[static_cast<size_t>(j)] = 1;
        auto src = idx;
        src[dim] = j;
        int64_t src_lin = 0;
        for (int d = 0; d < rank; ++d) src_lin = src_lin * input->sizes()[d] + src[d];
        bad = !same_value(input->get(src_lin), gv.get(lin));
      }
      if (bad) {
        if (c.mismatches == 0) {
          c.status = "index-inconsistent";
          c.message = "indices must be a permutation of each slice with input[index] == value";
        }
        record_mismatch(c, task.sort_indices_output, gi, gi, lin);
        c.expected = "an index j with input[j] == " + format_element(gv, lin);
        return;
      }
    }
  }
}

void check_statistical(const CaseInstance& inst, const std::map<std::string, HostTensor>& got, CaseCheck& c) {
  const Task& task = *inst.task;
  const auto& st = task.statistical;
  auto ctx = context_for(inst);
  for (const auto& p : task.params) {
    if (p.kind != ParamKind::Tensor || p.role == TensorRole::Input) continue;
    const HostTensor& out = got.at(p.name);
    int64_t n = out.numel();
    double sum = 0;
    OffsetWalker w(out, 0);
    for (int64_t i = 0; i < n; ++i, w.next()) {
      ++c.checked;
      double v = out.get_at(w.offset());
      bool in_support = st.support.empty() ? std::isfinite(v)
                                           : std::any_of(st.support.begin(), st.support.end(), [v](double s) { return s == v; });
      if (!in_support) {
        if (c.mismatches == 0) {
          c.status = "outside-support";
          c.message = "every output must be one of the support values";
        }
        record_mismatch(c, p.name, out, out, i);
      }
      sum += v;
    }
    if (c.mismatches || n == 0) continue;
    auto mu = evaluate_expression(st.mean, ctx);
    auto var = evaluate_expression(st.variance, ctx);
    if (!mu || !var) {
      c.status = "spec-error";
      c.message = !mu ? mu.error().message : var.error().message;
      c.mismatches = 1;
      return;
    }
    double mean = sum / static_cast<double>(n);
    double se = std::sqrt(std::max(*var, 0.0) / static_cast<double>(n));
    double z = se > 0 ? std::fabs(mean - *mu) / se : (std::fabs(mean - *mu) < 1e-12 ? 0 : INFINITY);
    c.max_abs_error = std::fabs(mean - *mu);
    if (z > st.mean_sigmas) {
      c.status = "statistics";
      c.mismatches = 1;
      c.output = p.name;
      std::ostringstream os;
      os << "sample mean " << mean << " is " << z << " standard errors from the expected " << *mu << " (allowed "
         << st.mean_sigmas << ")";
      c.message = os.str();
      c.expected = std::to_string(*mu);
      c.got = std::to_string(mean);
    }
  }
}

}  // namespace

RefArgs CaseInstance::ref_args() {
  RefArgs a;
  a.dtype = dtype;
  for (auto& [name, t] : tensors) a.tensors[name] = &t;
  a.scalars = scalars;
  return a;
}

std::string CaseInstance::label() const {
  return (spec ? spec->name : std::string("?")) + "/" + std::string(dtype_name(dtype));
}

std::vector<DType> case_dtypes(const Task& task, const Case& c) {
  std::vector<DType> out;
  if (!c.dtypes.empty()) {
    for (const auto& d : c.dtypes) out.push_back(*parse_dtype(d));
    return out;
  }
  if (!task.dtypes.empty()) return task.dtypes;
  // No type variable: the case's "dtype" is that of the first tensor.
  for (const auto& p : task.params)
    if (p.kind == ParamKind::Tensor)
      if (auto d = parse_dtype(p.dtype)) return {*d};
  return {DType::F32};
}

Result<CaseInstance> instantiate_case(const Task& task, const Case& c, DType dtype, uint64_t seed) {
  CaseInstance inst;
  inst.task = &task;
  inst.spec = &c;
  inst.dtype = dtype;
  inst.seed = seed;
  std::mt19937_64 rng(seed);
  std::string where_case = task.id + " case '" + c.name + "'";
  // Scalars first: shapes and bounds may refer to them.
  for (const auto& p : task.params) {
    if (p.kind != ParamKind::Scalar) continue;
    if (p.random) inst.scalars[p.name] = static_cast<double>(rng() >> 12);  // exactly representable as double
    else inst.scalars[p.name] = c.scalars.at(p.name);
  }
  auto ctx = context_for(inst);
  for (const auto& p : task.params) {
    if (p.kind != ParamKind::Tensor) continue;
    std::string where = where_case + ", tensor '" + p.name + "'";
    auto dt = resolve_dtype(task, p, dtype);
    if (!dt) return make_error("case.dtype", where + ": cannot resolve dtype '" + p.dtype + "'");
    const auto& shape_spec = c.shapes.count(p.name) ? c.shapes.at(p.name) : p.shape;
    std::vector<int64_t> sizes;
    for (const auto& dim : shape_spec) {
      auto v = evaluate_expression(dim, ctx);
      if (!v) return make_error("case.shape", where + ": dim '" + dim + "': " + v.error().message);
      if (*v < 0) return make_error("case.shape", where + ": dim '" + dim + "' is negative");
      sizes.push_back(static_cast<int64_t>(*v));
    }
    Layout layout = c.layouts.count(p.name) ? c.layouts.at(p.name) : Layout{};
    auto g = geometry_for(sizes, layout, where);
    if (!g) return g.error();
    inst.tensors.emplace(p.name, HostTensor(*dt, g->sizes, g->strides, g->storage));
  }
  for (const auto& p : task.params) {
    if (p.kind != ParamKind::Tensor || p.role == TensorRole::Output) continue;
    auto s = fill_input(inst.tensors.at(p.name), p, ctx, rng, where_case + ", tensor '" + p.name + "'");
    if (!s) return s.error();
  }
  return inst;
}

Result<std::map<std::string, HostTensor>> run_reference(const CaseInstance& instance) {
  const ReferenceFn* fn = find_reference(instance.task->id);
  if (!fn) return make_error("reference.missing", "no C++ reference registered for " + instance.task->id);
  // Outputs and in-place tensors are copies the reference writes; inputs are
  // read where they are (large performance cases are hundreds of MB), which
  // is why references must never write an input.
  std::map<std::string, HostTensor> written;
  RefArgs args;
  args.dtype = instance.dtype;
  args.scalars = instance.scalars;
  for (const auto& p : instance.task->params) {
    if (p.kind != ParamKind::Tensor) continue;
    const HostTensor& t = instance.tensors.at(p.name);
    if (p.role == TensorRole::Input) {
      args.tensors[p.name] = const_cast<HostTensor*>(&t);
    } else {
      args.tensors[p.name] = &written.emplace(p.name, t).first->second;
    }
  }
  try {
    (*fn)(args);
  } catch (const std::exception& e) {
    return make_error("reference.failed", "reference of " + instance.task->id + " failed on case " + instance.label() + ": " + e.what());
  }
  return written;
}

Result<double> evaluate_case_expression(const CaseInstance& instance, const std::string& expression) {
  return evaluate_expression(expression, context_for(instance));
}

CaseCheck check_outputs(const CaseInstance& inst, const std::map<std::string, HostTensor>& expected,
                        const std::map<std::string, HostTensor>& got) {
  CaseCheck c;
  c.name = inst.spec->name;
  c.dtype = std::string(dtype_name(inst.dtype));
  c.status = "ok";
  const Task& task = *inst.task;
  if (task.check == CheckKind::Statistical) {
    check_statistical(inst, got, c);
  } else if (task.check == CheckKind::Sort) {
    check_sort(inst, expected, got, c);
  } else {
    double reduction = 1;
    if (auto r = evaluate_case_expression(inst, task.tolerance.reduction)) reduction = std::max(1.0, *r);
    double atol = task.tolerance.atol * reduction;
    for (const auto& p : task.params) {
      if (p.kind != ParamKind::Tensor || p.role == TensorRole::Input) continue;
      check_elementwise(inst, p.name, expected.at(p.name), got.at(p.name), atol, c);
    }
  }
  c.passed = c.mismatches == 0;
  if (!c.passed && c.message.empty()) {
    std::ostringstream os;
    os << c.mismatches << " of " << c.checked << " elements wrong; first at " << c.output << format_index(c.first_bad_index)
       << ": expected " << c.expected << ", got " << c.got;
    c.message = os.str();
  } else if (!c.passed) {
    c.message += " (at " + c.output + format_index(c.first_bad_index) + ")";
  }
  return c;
}

}  // namespace kgb
