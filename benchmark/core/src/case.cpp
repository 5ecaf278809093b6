#include "kgb/case.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <unordered_set>

#include "kgb/decimal_text.h"
#include "kgb/expr.h"
#include "kgb/random.h"

namespace kgb {

std::vector<char> ListInstance::gap_mask() const {
  std::vector<char> gap(static_cast<size_t>(allocation_bytes), 1);
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i] || byte_offsets[i] < 0) continue;
    const HostTensor& t = *items[i];
    const std::vector<char> in_view = storage_in_view(t);
    const int32_t size = dtype_size(t.dtype());
    for (size_t e = 0; e < in_view.size(); ++e)
      if (in_view[e])
        std::fill_n(gap.begin() + byte_offsets[i] + static_cast<int64_t>(e) * size, size, 0);
  }
  return gap;
}

namespace {

// The parameters an instance has values for, as an expression sees them.
ExprContext context_for(const CaseInstance& inst) {
  ExprContext ctx;
  ctx.variable = [&inst](std::string_view name) -> std::optional<double> {
    std::string n(name);
    if (n == "elem") return static_cast<double>(dtype_size(inst.dtype));
    if (auto it = inst.spec->dims.find(n); it != inst.spec->dims.end()) return static_cast<double>(it->second);
    if (auto it = inst.scalars.find(n); it != inst.scalars.end()) return it->second.number();
    return std::nullopt;
  };
  ctx.tensor = [&inst](std::string_view name) -> const HostTensor* {
    auto it = inst.tensors.find(std::string(name));
    return it == inst.tensors.end() ? nullptr : &it->second;
  };
  ctx.int_list = [&inst](std::string_view name) -> const std::vector<int64_t>* {
    auto it = inst.scalars.find(std::string(name));
    return it != inst.scalars.end() && it->second.kind == ScalarValue::Kind::IntList ? &it->second.list : nullptr;
  };
  ctx.list_count = [&inst](std::string_view name) -> std::optional<int64_t> {
    auto it = inst.lists.find(std::string(name));
    if (it == inst.lists.end()) return std::nullopt;
    return static_cast<int64_t>(it->second.items.size());
  };
  ctx.element_size = [&inst](std::string_view name) -> std::optional<int64_t> {
    if (auto it = inst.dtypes.find(std::string(name)); it != inst.dtypes.end()) return dtype_size(it->second);
    if (auto it = inst.tensors.find(std::string(name)); it != inst.tensors.end()) return dtype_size(it->second.dtype());
    if (auto d = parse_dtype(name)) return dtype_size(*d);
    return std::nullopt;
  };
  return ctx;
}

struct Geometry {
  std::vector<int64_t> sizes, strides;
  int64_t storage = 0;  // elements
  int64_t offset = 0;   // elements from the storage start to logical element 0
};

Result<Geometry> geometry_for(const std::vector<int64_t>& sizes, const Layout& layout, const std::vector<int64_t>* like,
                              const std::string& where) {
  Geometry g;
  g.sizes = sizes;
  const int r = static_cast<int>(sizes.size());
  g.strides.assign(r, 0);
  if (like) {
    if (static_cast<int>(like->size()) != r)
      return make_error("case.layout", where + ": 'like' names a tensor of rank " + std::to_string(like->size()) + ", this one has rank " + std::to_string(r));
    g.strides = *like;
  } else if (layout.kind == "strides") {
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
    g.storage = layout.offset;
    g.offset = layout.offset;
    return g;
  }
  // Negative strides put storage below logical element 0.
  int64_t low = 0, high = 0;
  for (int d = 0; d < r; ++d) {
    const int64_t span = (sizes[d] - 1) * g.strides[d];
    (span < 0 ? low : high) += span;
  }
  g.offset = layout.offset - low;
  g.storage = layout.offset + high - low + 1;
  return g;
}

// Values outside a view (gaps of padded or stepped storage, the poisoned
// elements below an offset view) get a loud pattern, so a kernel that ignores
// the strides or the offset reads garbage.
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
// result on any number of cores. value(engine) gives the next value of a
// chunk, store(element offset, value) writes it.
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

// Redraws values a distribution excludes (integer divisors: no zeros).
template <class Value>
auto excluding(Value value, const std::vector<double>& exclude) {
  return [value, exclude](SplitMix64& g) mutable {
    for (int attempt = 0;; ++attempt) {
      auto v = value(g);
      if (attempt > 64 || std::find(exclude.begin(), exclude.end(), static_cast<double>(v)) == exclude.end()) return v;
    }
  };
}

void store_complex_at(HostTensor& t, int64_t e, std::complex<double> v) {
  std::byte* base = t.data();
  if (t.dtype() == DType::C64) {
    const float re = static_cast<float>(v.real()), im = static_cast<float>(v.imag());
    std::memcpy(base + (2 * e) * sizeof(float), &re, sizeof re);
    std::memcpy(base + (2 * e + 1) * sizeof(float), &im, sizeof im);
  } else {
    const double re = v.real(), im = v.imag();
    std::memcpy(base + (2 * e) * sizeof(double), &re, sizeof re);
    std::memcpy(base + (2 * e + 1) * sizeof(double), &im, sizeof im);
  }
}

// Distinct integers in [low, high) for each group of elements (the whole
// tensor, or every 1-D slice along `dim`), a share optionally replaced by a pad value.
Status fill_unique(HostTensor& t, const Distribution& d, int64_t low, int64_t high, std::mt19937_64& rng, const std::string& where) {
  const int rank = t.rank();
  const int64_t n = t.numel();
  if (n == 0) return Ok{};
  int dim = static_cast<int>(d.dim);
  if (d.per == "slice") {
    if (dim < 0) dim += rank;
    if (dim < 0 || dim >= rank) return make_error("case.dist", where + ": unique_randint dim " + std::to_string(d.dim) + " is out of range");
  }
  const int64_t group = d.per == "slice" ? t.sizes()[dim] : n;
  const int64_t range = high - low;
  if (range < group)
    return make_error("case.dist", where + ": unique_randint needs " + std::to_string(group) + " distinct values in [" + std::to_string(low) +
                                       ", " + std::to_string(high) + ")");
  auto draw_group = [&](std::vector<int64_t>& out) {
    out.clear();
    if (range <= 4 * group || range <= (1 << 16)) {
      std::vector<int64_t> pool(static_cast<size_t>(range));
      std::iota(pool.begin(), pool.end(), low);
      for (int64_t k = 0; k < group; ++k) {
        std::uniform_int_distribution<int64_t> pick(k, range - 1);
        std::swap(pool[static_cast<size_t>(k)], pool[static_cast<size_t>(pick(rng))]);
      }
      out.assign(pool.begin(), pool.begin() + group);
    } else {
      std::unordered_set<int64_t> seen;
      std::uniform_int_distribution<int64_t> pick(low, high - 1);
      while (static_cast<int64_t>(out.size()) < group) {
        int64_t v = pick(rng);
        if (seen.insert(v).second) out.push_back(v);
      }
    }
  };
  std::vector<int64_t> values;
  std::bernoulli_distribution pad(d.pad_share);
  auto value_at = [&](int64_t v) { return d.pad_value && pad(rng) ? *d.pad_value : v; };
  if (d.per != "slice") {
    draw_group(values);
    OffsetWalker w(t, 0);
    for (int64_t i = 0; i < n; ++i, w.next()) t.set_int_at(w.offset(), value_at(values[static_cast<size_t>(i)]));
    return Ok{};
  }
  // Every slice along dim: iterate the other indices.
  for (int64_t linear = 0; linear < n; ++linear) {
    std::vector<int64_t> idx = t.unravel(linear);
    if (idx[dim] != 0) continue;
    draw_group(values);
    for (int64_t k = 0; k < group; ++k) {
      idx[dim] = k;
      t.set_int_at(t.offset_of(idx), value_at(values[static_cast<size_t>(k)]));
    }
  }
  return Ok{};
}

// Sorts every row (last dimension) ascending.
void sort_rows(HostTensor& t) {
  if (t.rank() == 0 || t.numel() == 0) return;
  const int64_t row = t.sizes().back(), rows = t.numel() / row;
  const bool integral = is_integral(t.dtype());
  for (int64_t r = 0; r < rows; ++r) {
    if (integral) {
      std::vector<int64_t> v(static_cast<size_t>(row));
      for (int64_t k = 0; k < row; ++k) v[k] = t.get_int(r * row + k);
      std::sort(v.begin(), v.end());
      for (int64_t k = 0; k < row; ++k) t.set_int(r * row + k, v[k]);
    } else {
      std::vector<double> v(static_cast<size_t>(row));
      for (int64_t k = 0; k < row; ++k) v[k] = t.get(r * row + k);
      std::sort(v.begin(), v.end(), [](double a, double b) { return a < b || (std::isnan(b) && !std::isnan(a)); });
      for (int64_t k = 0; k < row; ++k) t.set(r * row + k, v[k]);
    }
  }
}

struct FillContext {
  const ExprContext& expr;
  const CaseInstance& inst;
  std::map<std::string, const HostTensor*>& filled;
};

Status fill_input(HostTensor& t, const Param& p, int64_t item, FillContext& fc, std::mt19937_64& rng, const std::string& where) {
  const Distribution& d = p.distribution;
  const int64_t n = t.numel();
  auto bound = [&](const std::string& e) -> Result<double> {
    auto v = evaluate_expression(e, fc.expr);
    if (!v) return make_error("case.dist", where + ": " + v.error().message);
    return v;
  };
  const uint64_t tensor_seed = rng();
  const bool complex = is_complex(t.dtype());
  auto store_real = [&t](int64_t e, double v) { t.set_at(e, v); };
  auto store_int = [&t](int64_t e, int64_t v) { t.set_int_at(e, v); };
  auto store_complex = [&t](int64_t e, std::complex<double> v) { store_complex_at(t, e, v); };
  if (d.kind == "normal") {
    auto normal = [mean = d.mean, stddev = d.stddev](SplitMix64& g) { return mean + stddev * standard_normal(g); };
    if (complex) {
      fill_chunked(t, tensor_seed, [normal](SplitMix64& g) { return std::complex<double>(normal(g), normal(g)); }, store_complex);
    } else if (is_integral(t.dtype())) {
      auto rounded = [normal](SplitMix64& g) { return std::llround(normal(g)); };
      if (d.exclude.empty()) fill_chunked(t, tensor_seed, rounded, store_int);
      else fill_chunked(t, tensor_seed, excluding(rounded, d.exclude), store_int);
    } else if (d.exclude.empty()) {
      fill_chunked(t, tensor_seed, normal, store_real);
    } else {
      fill_chunked(t, tensor_seed, excluding(normal, d.exclude), store_real);
    }
  } else if (d.kind == "uniform") {
    auto lo = bound(d.low), hi = bound(d.high);
    if (!lo) return lo.error();
    if (!hi) return hi.error();
    std::uniform_real_distribution<double> dist(*lo, *hi);
    if (complex) fill_chunked(t, tensor_seed, [dist](SplitMix64& g) mutable { return std::complex<double>(dist(g), dist(g)); }, store_complex);
    else if (d.exclude.empty()) fill_chunked(t, tensor_seed, [dist](SplitMix64& g) mutable { return dist(g); }, store_real);
    else fill_chunked(t, tensor_seed, excluding([dist](SplitMix64& g) mutable { return dist(g); }, d.exclude), store_real);
  } else if (d.kind == "randint") {
    auto lo = bound(d.low), hi = bound(d.high);
    if (!lo) return lo.error();
    if (!hi) return hi.error();
    int64_t l = static_cast<int64_t>(*lo), h = static_cast<int64_t>(*hi);
    if (h <= l && n > 0) return make_error("case.dist", where + ": randint range [" + std::to_string(l) + ", " + std::to_string(h) + ") is empty");
    std::uniform_int_distribution<int64_t> dist(l, std::max(l, h - 1));
    auto draw = [dist](SplitMix64& g) mutable { return dist(g); };
    if (d.exclude.empty()) {
      fill_chunked(t, tensor_seed, draw, store_int);
    } else {
      int64_t allowed = 0;
      for (int64_t v = l; v < h && allowed == 0; ++v)
        allowed += std::find(d.exclude.begin(), d.exclude.end(), static_cast<double>(v)) == d.exclude.end();
      if (allowed == 0 && n > 0) return make_error("case.dist", where + ": every value of the randint range is excluded");
      fill_chunked(t, tensor_seed, excluding(draw, d.exclude), store_int);
    }
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
  } else if (d.kind == "bits") {
    const int32_t size = dtype_size(t.dtype());
    const int32_t parts = complex ? 2 : 1;
    fill_chunked(t, tensor_seed, [](SplitMix64& g) { return g(); }, [&t, size, parts](int64_t e, uint64_t bits) {
      for (int32_t k = 0; k < parts; ++k) {
        const int32_t part = size / parts;
        uint64_t b = k ? std::rotl(bits, 32) : bits;
        std::memcpy(t.data() + (e * parts + k) * part, &b, static_cast<size_t>(part));
      }
    });
  } else if (d.kind == "choice") {
    const std::vector<double> values = d.choice;
    std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
    fill_chunked(t, tensor_seed, [pick, values](SplitMix64& g) mutable { return values[pick(g)]; }, store_real);
  } else if (d.kind == "unique_randint") {
    auto lo = bound(d.low), hi = bound(d.high);
    if (!lo) return lo.error();
    if (!hi) return hi.error();
    if (auto s = fill_unique(t, d, static_cast<int64_t>(*lo), static_cast<int64_t>(*hi), rng, where); !s) return s;
  } else if (d.kind == "mask") {
    auto count = bound(d.count);
    if (!count) return count.error();
    const int64_t k = static_cast<int64_t>(*count);
    if (k < 0 || k > n) return make_error("case.dist", where + ": mask count " + std::to_string(k) + " outside [0, " + std::to_string(n) + "]");
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int64_t> values(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < k; ++i) values[static_cast<size_t>(order[i])] = 1;
    from_ints(t, values);
  } else if (d.kind == "custom") {
    const GeneratorFn* gen = find_generator(d.generator);
    if (!gen) return make_error("case.dist", where + ": no generator registered as '" + d.generator + "'");
    SplitMix64 engine{tensor_seed};
    GeneratorArgs args{t, p.name, item, fc.inst.spec->dims, fc.inst.scalars, fc.filled, fc.inst.dtypes, engine};
    try {
      (*gen)(args);
    } catch (const std::exception& e) {
      return make_error("case.dist", where + ": generator '" + d.generator + "' failed: " + e.what());
    }
  }
  if (d.sorted) sort_rows(t);
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

void record_mismatch(CaseCheck& c, const std::string& output, const HostTensor& expected, const HostTensor& got, int64_t i) {
  if (c.mismatches++ == 0) {
    c.output = output;
    c.first_bad_index = got.unravel(i);
    c.expected = format_element(expected, i);
    c.got = format_element(got, i);
  }
}

void fail_with(CaseCheck& c, const std::string& output, const std::string& status, const std::string& message) {
  if (c.mismatches++ == 0) {
    c.status = status;
    c.output = output;
    c.message = message;
  }
}

// Distance in representable steps between two finite values of a float
// dtype, from their storage bits (sign-magnitude mapped to a line).
int64_t ulp_distance(const HostTensor& a, int64_t ea, const HostTensor& b, int64_t eb) {
  const int32_t size = dtype_size(a.dtype());
  auto ordered = [size](const std::byte* p) -> int64_t {
    uint64_t bits = 0;
    std::memcpy(&bits, p, static_cast<size_t>(size));
    const uint64_t sign = uint64_t{1} << (8 * size - 1);
    const int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
    return (bits & sign) ? -magnitude : magnitude;
  };
  return std::llabs(ordered(a.data() + ea * size) - ordered(b.data() + eb * size));
}

// What one chunk of an elementwise comparison found.
struct ChunkCheck {
  int64_t checked = 0, mismatches = 0;
  double max_abs_error = 0, max_rel_error = 0;
  int64_t first_bad = -1;  // logical index
  std::string status;      // of the first bad element
};

struct Comparison {
  double rtol = 0, atol = 0;
  int max_ulp = -1;   // >= 0: compare by representable steps instead
  bool bitwise = false;
};

void check_elementwise(const std::string& name, const HostTensor& expected, const HostTensor& got, const Comparison& rule, CaseCheck& c) {
  if (got.sizes() != expected.sizes()) {
    fail_with(c, name, "shape", "output '" + name + "' has the wrong shape");
    return;
  }
  const DType dt = got.dtype();
  const bool exact = is_integral(dt), complex = is_complex(dt);
  const int32_t size = dtype_size(dt);
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
      if (rule.bitwise) {
        const int32_t bytes = size * (complex ? 1 : 1);
        if (std::memcmp(expected.data() + we.offset() * bytes, got.data() + wg.offset() * bytes, static_cast<size_t>(bytes)) != 0)
          bad_at(i, "bits-differ");
        continue;
      }
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
        if (rule.max_ulp >= 0 && !complex) {
          if (ulp_distance(expected, we.offset(), got, wg.offset()) > rule.max_ulp) {
            bad_at(i, "ulp-distance");
            break;
          }
          continue;
        }
        if (abs_err > rule.atol + rule.rtol * std::fabs(ev)) {
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

Comparison comparison_for(const Task& task, const std::string& output, DType dt, double reduction) {
  Comparison cmp;
  cmp.rtol = default_rtol(dt);
  if (auto it = task.tolerance.rtol.find(dt); it != task.tolerance.rtol.end()) cmp.rtol = it->second;
  cmp.atol = task.tolerance.atol * reduction;
  if (auto it = task.tolerance.max_ulp.find(dt); it != task.tolerance.max_ulp.end()) cmp.max_ulp = it->second;
  if (auto rule = task.output_rules.find(output); rule != task.output_rules.end()) {
    const OutputRule& r = rule->second;
    if (auto it = r.rtol.find(dt); it != r.rtol.end()) cmp.rtol = it->second;
    if (r.atol) cmp.atol = *r.atol;
    if (auto it = r.max_ulp.find(dt); it != r.max_ulp.end()) cmp.max_ulp = it->second;
    cmp.bitwise = r.mode == OutputRule::Mode::Bitwise;
  }
  return cmp;
}

OutputRule::Mode output_mode(const Task& task, const std::string& output) {
  auto it = task.output_rules.find(output);
  return it == task.output_rules.end() ? OutputRule::Mode::Default : it->second.mode;
}

// Logical position of element `linear` (row-major) of a view, as a storage offset.
bool same_view(const ViewResult& a, const ViewResult& b) {
  if (a.sizes != b.sizes) return false;
  int64_t numel = 1;
  for (auto s : a.sizes) numel *= s;
  if (numel == 0) return true;
  if (a.storage_offset != b.storage_offset) return false;
  for (size_t d = 0; d < a.sizes.size(); ++d)
    if (a.sizes[d] > 1 && a.strides[d] != b.strides[d]) return false;
  return true;
}

std::string describe_view(const ViewResult& v) {
  std::ostringstream os;
  os << "sizes " << format_index(v.sizes) << ", strides " << format_index(v.strides) << ", storage_offset " << v.storage_offset;
  return os.str();
}

void check_view(const CaseInstance& inst, const Param& p, const ViewResult* expected_view, const HostTensor* expected_copy,
                const ViewObservation& seen, const HostTensor* got_copy, const std::string& label, CaseCheck& c) {
  const int alias_index = inst.task->param_index(p.alias_of);
  auto describe_seen = [&]() -> std::string {
    switch (seen.where) {
      case ViewObservation::Where::Outside: return "a data pointer outside every allocation of the call";
      case ViewObservation::Where::Unchanged: return "the pre-allocated output, unchanged (a copy)";
      case ViewObservation::Where::Alias:
        if (seen.alias_param != alias_index) {
          const auto& params = inst.task->params;
          std::string holder = seen.alias_param >= 0 && seen.alias_param < static_cast<int>(params.size()) ? params[seen.alias_param].name : "?";
          return "a view into '" + holder + "' instead of '" + p.alias_of + "'";
        }
        return "a view of '" + p.alias_of + "' with " + describe_view(seen.view);
    }
    return "?";
  };
  if (seen.where == ViewObservation::Where::Outside) {
    fail_with(c, label, "view.outside_storage", "'" + label + "' describes " + describe_seen());
    return;
  }
  if (seen.where == ViewObservation::Where::Alias && seen.misaligned) {
    fail_with(c, label, "view.misaligned", "'" + label + "' points between two elements of '" + p.alias_of + "'");
    return;
  }
  if (seen.where == ViewObservation::Where::Alias && seen.reported_storage_offset != seen.view.storage_offset) {
    fail_with(c, label, "view.storage_offset",
              "'" + label + "'.storage_offset is " + std::to_string(seen.reported_storage_offset) + " but data lies " +
                  std::to_string(seen.view.storage_offset) + " elements into the allocation of '" + p.alias_of + "'");
    return;
  }
  if (expected_view) {  // ATen aliases here
    if (seen.where == ViewObservation::Where::Alias && seen.alias_param == alias_index && same_view(seen.view, *expected_view)) {
      ++c.checked;
      return;
    }
    if (seen.where == ViewObservation::Where::Unchanged && p.alias == AliasRule::Allowed && got_copy) {
      // reshape may copy where it could alias: the values must be those of the view.
      auto values = materialize_view(inst.tensors.at(p.alias_of), *expected_view);
      if (!values) {
        fail_with(c, label, "reference-error", values.error().message);
        return;
      }
      check_elementwise(label, *values, *got_copy, Comparison{0, 0, -1, true}, c);
      return;
    }
    fail_with(c, label, "view.mismatch",
              "'" + label + "' must be a view of '" + p.alias_of + "' with " + describe_view(*expected_view) + "; got " + describe_seen());
    return;
  }
  // ATen copies here: the pre-allocated output keeps its descriptor and holds the values.
  if (seen.where != ViewObservation::Where::Unchanged) {
    fail_with(c, label, "view.unexpected_alias",
              "'" + label + "' cannot alias '" + p.alias_of + "' in this case (ATen copies: its strides allow no view); expected the values "
              "in the pre-allocated output, got " + describe_seen());
    return;
  }
  if (!expected_copy || !got_copy) {
    fail_with(c, label, "reference-error", "the reference neither answered a view nor wrote '" + label + "'");
    return;
  }
  check_elementwise(label, *expected_copy, *got_copy, comparison_for(*inst.task, p.name, got_copy->dtype(), 1), c);
}

bool same_scalar(const kgb_scalar& a, const kgb_scalar& b) {
  if (a.dtype != b.dtype) return false;
  switch (a.dtype) {
    case KGB_F64: return same_value(a.v.f, b.v.f) && (std::isnan(a.v.f) || std::signbit(a.v.f) == std::signbit(b.v.f));
    case KGB_C128: return same_value(a.v.c.re, b.v.c.re) && same_value(a.v.c.im, b.v.c.im);
    default: return a.v.i == b.v.i;
  }
}

std::string format_scalar(const kgb_scalar& s) {
  std::ostringstream os;
  switch (s.dtype) {
    case KGB_BOOL: os << "bool " << (s.v.i ? "true" : "false"); break;
    case KGB_I64: os << "i64 " << s.v.i; break;
    case KGB_F64: os << "f64 " << format_double(s.v.f); break;
    case KGB_C128: os << "c128 (" << format_double(s.v.c.re) << ", " << format_double(s.v.c.im) << ")"; break;
    default: os << "dtype " << s.dtype << " (not a scalar kind)"; break;
  }
  return os.str();
}

// Values (exact) and index consistency: sort and topk.
void check_order(const CaseInstance& inst, const CaseOutputs& expected, const CaseOutputs& got, CaseCheck& c) {
  const Task& task = *inst.task;
  const OrderCheck& oc = task.order;
  const HostTensor& ev = expected.tensors.at(oc.values);
  const HostTensor& gv = got.tensors.at(oc.values);
  const HostTensor& gi = got.tensors.at(oc.indices);
  const HostTensor& input = inst.tensors.at(oc.input);
  const int rank = gv.rank();
  int dim = static_cast<int>(inst.scalars.at(oc.dim).number().value_or(0));
  if (rank > 0 && dim < 0) dim += rank;
  const bool topk = task.check == CheckKind::Topk;
  const bool sorted = !topk || oc.sorted.empty() || inst.scalars.at(oc.sorted).i != 0;
  const int64_t len = rank == 0 ? 1 : gv.sizes()[dim];
  const int64_t in_len = rank == 0 ? 1 : input.sizes()[dim];
  auto linear_of = [](const HostTensor& t, const std::vector<int64_t>& idx) {
    int64_t lin = 0;
    for (int d = 0; d < t.rank(); ++d) lin = lin * t.sizes()[d] + idx[d];
    return lin;
  };
  if (sorted) {
    for (int64_t i = 0; i < gv.numel(); ++i) {
      ++c.checked;
      if (!same_value(ev.get(i), gv.get(i))) {
        if (c.mismatches == 0) c.status = "mismatch";
        record_mismatch(c, oc.values, ev, gv, i);
      }
    }
    if (c.mismatches) return;
  }
  if (gv.numel() == 0) return;
  std::vector<char> seen(static_cast<size_t>(in_len));
  for (int64_t i = 0; i < gi.numel(); ++i) {
    auto idx = gi.unravel(i);
    if (rank > 0 && idx[dim] != 0) continue;
    std::fill(seen.begin(), seen.end(), 0);
    std::vector<double> got_values, expected_values;
    for (int64_t k = 0; k < len; ++k) {
      if (rank > 0) idx[dim] = k;
      const int64_t lin = linear_of(gi, idx);
      const int64_t j = gi.get_int(lin);
      bool bad = j < 0 || j >= in_len || seen[static_cast<size_t>(j)];
      if (!bad) {
        seen[static_cast<size_t>(j)] = 1;
        auto src = idx;
        if (rank > 0) src[dim] = j;
        bad = !same_value(input.get(linear_of(input, src)), gv.get(lin));
      }
      if (bad) {
        if (c.mismatches == 0) {
          c.status = "index-inconsistent";
          c.message = topk ? "indices must be distinct positions of the input with input[index] == value"
                           : "indices must be a permutation of each slice with input[index] == value";
        }
        record_mismatch(c, oc.indices, gi, gi, lin);
        c.expected = "an index j with input[j] == " + format_element(gv, lin);
        return;
      }
      got_values.push_back(gv.get(lin));
      expected_values.push_back(ev.get(lin));
    }
    if (!sorted) {
      // Any order among the k values: the same multiset as the reference's.
      auto less = [](double a, double b) { return a < b || (std::isnan(b) && !std::isnan(a)); };
      std::sort(got_values.begin(), got_values.end(), less);
      std::sort(expected_values.begin(), expected_values.end(), less);
      for (size_t k = 0; k < got_values.size(); ++k) {
        ++c.checked;
        if (!same_value(got_values[k], expected_values[k])) {
          fail_with(c, oc.values, "mismatch", "the selected values differ from the reference's (as a set) in a slice");
          return;
        }
      }
    }
  }
}

// The values of `t` in logical (row-major) order, every `step`-th one.
std::vector<double> logical_values(const HostTensor& t, int64_t step) {
  std::vector<double> v;
  v.reserve(static_cast<size_t>(t.numel() / step + 1));
  OffsetWalker w(t, 0);
  for (int64_t i = 0; i < t.numel(); ++i, w.next())
    if (i % step == 0) v.push_back(t.get_at(w.offset()));
  return v;
}

// Two-sample Kolmogorov-Smirnov statistic of two sorted samples.
double ks_statistic(const std::vector<double>& a, const std::vector<double>& b) {
  size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    d = std::max(d, std::fabs(static_cast<double>(i) / a.size() - static_cast<double>(j) / b.size()));
  }
  return d;
}

// The candidate's draws against the reference sampler's draws for the same
// inputs, per quantile bin of the strata tensor: a kernel that gets the mean
// right with the wrong distribution (a threshold instead of a draw, a
// constant, draws that ignore the per-element parameter) fails here. At most
// 2^20 elements are compared (a regular subsample), so performance-size
// re-checks stay cheap and sensitive. The critical value c = 3.5 puts the
// false-alarm rate of one test near 5e-11.
void check_distribution(const CaseInstance& inst, const Param& p, const HostTensor& out, const HostTensor& reference,
                        CaseCheck& c) {
  const auto& st = inst.task->statistical;
  const int64_t n = out.numel();
  if (n < 2 || reference.numel() != n) return;
  const int64_t step = std::max<int64_t>(1, n / (int64_t{1} << 20));
  std::vector<double> got = logical_values(out, step), want = logical_values(reference, step);
  std::vector<int> stratum(got.size(), 0);
  int bins = 1;
  if (!st.strata.empty()) {
    auto it = inst.tensors.find(st.strata);
    if (it == inst.tensors.end() || it->second.numel() != n) {
      fail_with(c, p.name, "spec-error", "statistical check: strata tensor '" + st.strata + "' must have the output's shape");
      return;
    }
    std::vector<double> key = logical_values(it->second, step);
    std::vector<double> sorted = key;
    std::sort(sorted.begin(), sorted.end());
    bins = std::max(1, std::min<int>(st.strata_bins, static_cast<int>(sorted.size() / 50)));
    std::vector<double> edges;
    for (int b = 1; b < bins; ++b) edges.push_back(sorted[sorted.size() * static_cast<size_t>(b) / static_cast<size_t>(bins)]);
    for (size_t i = 0; i < key.size(); ++i)
      stratum[i] = static_cast<int>(std::upper_bound(edges.begin(), edges.end(), key[i]) - edges.begin());
  }
  for (int b = 0; b < bins; ++b) {
    std::vector<double> x, y;
    for (size_t i = 0; i < got.size(); ++i)
      if (stratum[i] == b) {
        x.push_back(got[i]);
        y.push_back(want[i]);
      }
    if (x.size() < 2) continue;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    const double d = ks_statistic(x, y);
    const double critical = 3.5 * std::sqrt(2.0 / static_cast<double>(x.size()));
    if (d > critical) {
      c.status = "statistics";
      c.mismatches = 1;
      c.output = p.name;
      std::ostringstream os;
      os << "the outputs' distribution differs from the reference sampler's";
      if (bins > 1) os << " in stratum " << b + 1 << " of " << bins << " of '" << st.strata << "'";
      os << ": Kolmogorov-Smirnov distance " << d << " over " << x.size() << " draws (allowed " << critical << ")";
      c.message = os.str();
      return;
    }
  }
}

void check_statistical(const CaseInstance& inst, const CaseOutputs& expected, const CaseOutputs& got, CaseCheck& c) {
  const Task& task = *inst.task;
  const auto& st = task.statistical;
  auto ctx = context_for(inst);
  for (const auto& p : task.params) {
    if (p.kind != ParamKind::Tensor || !p.is_written() || p.role == TensorRole::Scratch) continue;
    if (output_mode(task, p.name) == OutputRule::Mode::None) continue;
    const HostTensor& out = got.tensors.at(p.name);
    int64_t n = out.numel();
    double sum = 0;
    OffsetWalker w(out, 0);
    for (int64_t i = 0; i < n; ++i, w.next()) {
      ++c.checked;
      double v = out.get_at(w.offset());
      bool in_support;
      if (st.support_is_interval) {
        in_support = !std::isnan(v) && (!st.support_min || v >= *st.support_min) && (!st.support_max || v <= *st.support_max) &&
                     (!st.support_integer || v == std::floor(v));
      } else {
        in_support = st.support.empty() ? std::isfinite(v) : std::any_of(st.support.begin(), st.support.end(), [v](double s) { return s == v; });
      }
      if (!in_support) {
        if (c.mismatches == 0) {
          c.status = "outside-support";
          c.message = "every output must lie in the support";
        }
        record_mismatch(c, p.name, out, out, i);
      }
      sum += v;
    }
    if (c.mismatches || n == 0) continue;
    auto mu = evaluate_expression(st.mean, ctx);
    auto var = evaluate_expression(st.variance, ctx);
    if (!mu || !var) {
      fail_with(c, p.name, "spec-error", !mu ? mu.error().message : var.error().message);
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
      os << "sample mean " << mean << " is " << z << " standard errors from the expected " << *mu << " (allowed " << st.mean_sigmas << ")";
      c.message = os.str();
      c.expected = std::to_string(*mu);
      c.got = std::to_string(mean);
      return;
    }
    if (st.distribution) {
      auto ref = expected.tensors.find(p.name);
      if (ref != expected.tensors.end()) check_distribution(inst, p, out, ref->second, c);
      if (c.mismatches) return;
    }
  }
}

RefArgs outputs_as_args(const CaseInstance& inst, const CaseOutputs& outputs) {
  RefArgs a = inst.ref_args();
  for (auto& [name, t] : const_cast<CaseOutputs&>(outputs).tensors) a.tensors[name] = &t;
  for (auto& [name, items] : const_cast<CaseOutputs&>(outputs).lists) {
    auto& ptrs = a.lists[name];
    ptrs.clear();
    for (auto& item : items) ptrs.push_back(item ? &*item : nullptr);
  }
  a.views = outputs.views;
  a.list_views = outputs.list_views;
  for (const auto& [name, v] : outputs.observed_views) a.views[name] = v.view;
  a.scalar_results = outputs.scalars;
  return a;
}

}  // namespace

RefArgs CaseInstance::ref_args() const {
  RefArgs a;
  a.dtype = dtype;
  a.dtypes = dtypes;
  for (const auto& [name, t] : tensors) a.tensors[name] = const_cast<HostTensor*>(&t);
  for (const auto& name : none) a.tensors[name] = nullptr;
  for (const auto& [name, list] : lists) {
    auto& ptrs = a.lists[name];
    for (const auto& item : list.items) ptrs.push_back(item ? const_cast<HostTensor*>(&*item) : nullptr);
  }
  a.scalars = scalars;
  return a;
}

std::string binding_label(const DTypeBinding& b) {
  if (b.empty()) return "";
  if (b.size() == 1) return std::string(dtype_name(b.begin()->second));
  std::string s;
  for (const auto& [var, dt] : b) s += (s.empty() ? "" : ",") + var + "=" + std::string(dtype_name(dt));
  return s;
}

std::string CaseInstance::dtype_label() const {
  std::string l = binding_label(dtypes);
  return l.empty() ? std::string(dtype_name(dtype)) : l;
}

std::string CaseInstance::label() const {
  std::string prefix = task && task->is_overload ? task->overload + ":" : "";
  return prefix + (spec ? spec->name : std::string("?")) + "/" + dtype_label();
}

std::vector<DTypeBinding> case_dtypes(const Task& task, const Case& c) {
  if (!c.dtypes.empty()) return c.dtypes;
  if (!task.dtype_combinations.empty()) return task.dtype_combinations;
  std::vector<DTypeBinding> out{DTypeBinding{}};
  for (const auto& [var, values] : task.type_variables) {
    std::vector<DTypeBinding> next;
    for (const auto& b : out)
      for (DType d : values) {
        DTypeBinding e = b;
        e[var] = d;
        next.push_back(std::move(e));
      }
    out = std::move(next);
  }
  return out;
}

Result<CaseInstance> instantiate_case(const Task& task, const Case& c, const DTypeBinding& dtypes, uint64_t seed) {
  CaseInstance inst;
  inst.task = &task;
  inst.spec = &c;
  inst.dtypes = dtypes;
  inst.seed = seed;
  inst.aliases = c.aliases;
  std::mt19937_64 rng(seed);
  const std::string where_case = task.key() + " case '" + c.name + "'";
  // Scalars first: shapes and bounds may refer to them.
  for (const auto& p : task.params) {
    if (p.kind != ParamKind::Scalar) continue;
    if (p.random) inst.scalars[p.name] = ScalarValue::of_int(static_cast<int64_t>(rng() >> 12));  // exact as a double
    else inst.scalars[p.name] = c.scalars.at(p.name);
  }
  auto ctx = context_for(inst);
  auto evaluate_shape = [&](const Param& p, const std::vector<std::string>& dims, const std::string& where) -> Result<std::vector<int64_t>> {
    std::vector<int64_t> sizes;
    if (dims.empty() && !p.shape_from.empty()) {
      const ScalarValue& v = inst.scalars.at(p.shape_from);
      if (v.kind != ScalarValue::Kind::IntList) return make_error("case.shape", where + ": shape parameter '" + p.shape_from + "' has no list");
      for (int64_t s : v.list) {
        if (s < 0) return make_error("case.shape", where + ": a size from '" + p.shape_from + "' is negative");
        sizes.push_back(s);
      }
      return sizes;
    }
    for (const auto& dim : dims) {
      auto v = evaluate_expression(dim, ctx);
      if (!v) return make_error("case.shape", where + ": dim '" + dim + "': " + v.error().message);
      if (*v < 0) return make_error("case.shape", where + ": dim '" + dim + "' is negative");
      sizes.push_back(static_cast<int64_t>(*v));
    }
    return sizes;
  };

  // Shapes and ranks, then dtypes (result_type looks at ranks).
  std::map<std::string, std::vector<int64_t>> sizes_of;
  std::map<std::string, std::vector<std::optional<std::vector<int64_t>>>> item_sizes;
  std::map<std::string, int> ranks;
  for (const auto& p : task.params) {
    const std::string where = where_case + ", " + (p.is_list() ? "list" : "tensor") + " '" + p.name + "'";
    if (p.kind == ParamKind::Tensor) {
      auto it = c.shapes.find(p.name);
      if (it != c.shapes.end() && !it->second) {
        inst.none.insert(p.name);
        continue;
      }
      auto s = evaluate_shape(p, it != c.shapes.end() ? *it->second : p.shape, where);
      if (!s) return s.error();
      ranks[p.name] = static_cast<int>(s->size());
      sizes_of[p.name] = *s;
    } else if (p.kind == ParamKind::TensorList) {
      auto count = evaluate_expression(p.count, ctx);
      if (!count) return make_error("case.list", where + ": count '" + p.count + "': " + count.error().message);
      if (*count < 0) return make_error("case.list", where + ": negative count");
      const auto n = static_cast<size_t>(*count);
      auto lc = c.lists.find(p.name);
      auto& items = item_sizes[p.name];
      for (size_t k = 0; k < n; ++k) {
        const std::string iw = where + " item " + std::to_string(k);
        if (lc != c.lists.end() && !lc->second.shapes.empty()) {
          if (lc->second.shapes.size() != n) return make_error("case.list", where + ": shapes for " + std::to_string(lc->second.shapes.size()) + " items, count is " + std::to_string(n));
          if (!lc->second.shapes[k]) {
            items.emplace_back(std::nullopt);
            continue;
          }
          auto s = evaluate_shape(p, *lc->second.shapes[k], iw);
          if (!s) return s.error();
          items.emplace_back(*s);
        } else {
          auto s = evaluate_shape(p, lc != c.lists.end() && !lc->second.shape.empty() ? lc->second.shape : p.shape, iw);
          if (!s) return s.error();
          items.emplace_back(*s);
        }
      }
    }
  }
  // The case's primary dtype: the first variable's value, else the first tensor's.
  if (!task.type_variables.empty()) {
    auto it = dtypes.find(task.type_variables.front().first);
    if (it == dtypes.end()) return make_error("case.dtype", where_case + ": type variable '" + task.type_variables.front().first + "' is not bound");
    inst.dtype = it->second;
  }
  std::map<std::string, DType> dtype_of;
  bool primary_set = !task.type_variables.empty();
  for (const auto& p : task.params) {
    if (p.kind != ParamKind::Tensor && p.kind != ParamKind::TensorList) continue;
    if (inst.none.count(p.name)) continue;
    auto dt = resolve_param_dtype(task, p, dtypes, inst.scalars, ranks);
    if (!dt) return make_error("case.dtype", where_case + ", '" + p.name + "': " + dt.error().message);
    dtype_of[p.name] = *dt;
    if (!primary_set) {
      inst.dtype = *dt;
      primary_set = true;
    }
  }

  auto layout_of = [&](const Param& p, const std::optional<Layout>& case_layout) {
    return case_layout ? *case_layout : p.layout ? *p.layout : Layout{};
  };
  // Tensors: geometry (a `like` layout after the tensor it copies).
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& p : task.params) {
      if (p.kind != ParamKind::Tensor || inst.none.count(p.name) || inst.tensors.count(p.name)) continue;
      const std::string where = where_case + ", tensor '" + p.name + "'";
      auto cl = c.layouts.find(p.name);
      Layout layout = layout_of(p, cl != c.layouts.end() ? std::optional<Layout>(cl->second) : std::nullopt);
      const std::vector<int64_t>* like = nullptr;
      if (!layout.like.empty()) {
        auto other = inst.tensors.find(layout.like);
        if (other == inst.tensors.end()) {
          if (pass == 0) continue;
          return make_error("case.layout", where + ": 'like' names '" + layout.like + "', which has no tensor in this case");
        }
        if (other->second.sizes() != sizes_of.at(p.name))
          return make_error("case.layout", where + ": 'like' needs '" + layout.like + "' to have the same sizes");
        like = &other->second.strides();
      }
      auto g = geometry_for(sizes_of.at(p.name), layout, like, where);
      if (!g) return g.error();
      // A pure view gets no storage: the entry describes where it lies.
      const bool pure_view = p.role == TensorRole::View && p.alias == AliasRule::Required;
      HostTensor t(dtype_of.at(p.name), g->sizes, g->strides, pure_view ? 0 : g->storage, pure_view ? 0 : g->offset);
      if (layout.conj || layout.neg) {
        if (p.role != TensorRole::Input) return make_error("case.layout", where + ": conj and neg flags are for inputs");
        if (layout.conj && !is_complex(t.dtype())) return make_error("case.layout", where + ": the conj flag needs a complex dtype");
        t.set_flags((layout.conj ? KGB_TENSOR_CONJ : 0u) | (layout.neg ? KGB_TENSOR_NEG : 0u));
      }
      inst.tensors.emplace(p.name, std::move(t));
    }
  }
  for (const auto& [target, host] : c.aliases) {
    if (inst.none.count(target) || inst.none.count(host)) return make_error("case.alias", where_case + ": an alias involves a None tensor");
    if (inst.tensors.at(target).storage().size() != inst.tensors.at(host).storage().size() ||
        inst.tensors.at(target).dtype() != inst.tensors.at(host).dtype())
      return make_error("case.alias", where_case + ": '" + target + "' must have the dtype and storage size of '" + host + "' to live on it");
  }

  // Inputs, in parameter order (tensors and list items); v1 draws are unchanged.
  std::map<std::string, const HostTensor*> filled;
  FillContext fc{ctx, inst, filled};
  for (const auto& p : task.params) {
    if (p.kind == ParamKind::Tensor) {
      if (inst.none.count(p.name) || (p.role != TensorRole::Input && p.role != TensorRole::InOut) || c.aliases.count(p.name)) continue;
      HostTensor& t = inst.tensors.at(p.name);
      if (auto s = fill_input(t, p, -1, fc, rng, where_case + ", tensor '" + p.name + "'"); !s) return s.error();
      filled[p.name] = &t;
    } else if (p.kind == ParamKind::TensorList) {
      ListInstance& list = inst.lists[p.name];
      auto lc = c.lists.find(p.name);
      list.repeat = lc != c.lists.end() && lc->second.repeat;
      const auto& shapes = item_sizes.at(p.name);
      for (size_t k = 0; k < shapes.size(); ++k) {
        if (!shapes[k]) {
          list.items.emplace_back(std::nullopt);
          continue;
        }
        const std::string where = where_case + ", list '" + p.name + "' item " + std::to_string(k);
        std::optional<Layout> case_layout;
        if (lc != c.lists.end() && !lc->second.layouts.empty()) case_layout = lc->second.layouts.at(k);
        else if (lc != c.lists.end() && lc->second.layout) case_layout = lc->second.layout;
        Layout layout = layout_of(p, case_layout);
        if (!layout.like.empty()) return make_error("case.layout", where + ": list items cannot copy another tensor's layout");
        auto g = geometry_for(*shapes[k], layout, nullptr, where);
        if (!g) return g.error();
        HostTensor t(dtype_of.at(p.name), g->sizes, g->strides, p.role == TensorRole::View ? 0 : g->storage,
                     p.role == TensorRole::View ? 0 : g->offset);
        if (list.repeat && k > 0 && list.items.front()) {
          if (list.items.front()->sizes() != t.sizes() || list.items.front()->strides() != t.strides())
            return make_error("case.list", where + ": aliasing repeat needs every item to have the first item's shape and layout");
          list.items.push_back(list.items.front());
          continue;
        }
        if (p.role == TensorRole::Input || p.role == TensorRole::InOut)
          if (auto s = fill_input(t, p, static_cast<int64_t>(k), fc, rng, where); !s) return s.error();
        list.items.emplace_back(std::move(t));
      }
    }
  }
  // An output placed on an input's storage starts with the input's values.
  for (const auto& [target, host] : c.aliases) inst.tensors.at(target).storage() = inst.tensors.at(host).storage();

  // Lists: one allocation each, items in a seeded order with poisoned gaps.
  // The placement is seeded by the case, not by the input seed: the rotating
  // input sets of a timing job share the job's one list layout (make_job
  // describes every set with the first set's offsets and sizes).
  uint64_t placement_seed = 0xCBF29CE484222325ull;  // FNV-1a of the entry key and the case name
  for (char ch : task.key() + "|" + c.name) placement_seed = (placement_seed ^ static_cast<unsigned char>(ch)) * 0x100000001B3ull;
  SplitMix64 placement{placement_seed ^ 0x4C4953545F504C41ull};
  for (const auto& p : task.params) {
    if (p.kind != ParamKind::TensorList || p.role == TensorRole::View) continue;
    ListInstance& list = inst.lists.at(p.name);
    const size_t n = list.items.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    for (size_t k = n; k > 1; --k) std::swap(order[k - 1], order[placement() % k]);
    list.byte_offsets.assign(n, -1);
    uint64_t at = 0;
    for (size_t k : order) {
      if (!list.items[k]) continue;
      if (list.repeat && k > 0) continue;
      at += 256 * (1 + placement() % 4);  // the gap before every item
      list.byte_offsets[k] = static_cast<int64_t>(at);
      at += (list.items[k]->storage().size() + 255) / 256 * 256;
    }
    if (list.repeat)
      for (size_t k = 1; k < n; ++k)
        if (list.items[k]) list.byte_offsets[k] = list.byte_offsets[0];
    list.allocation_bytes = at + 256;
    if (p.role == TensorRole::Input || p.role == TensorRole::InOut) {
      list.packed.assign(list.allocation_bytes, std::byte{0xFF});
      for (size_t k = 0; k < n; ++k)
        if (list.items[k])
          std::memcpy(list.packed.data() + list.byte_offsets[k], list.items[k]->storage().data(), list.items[k]->storage().size());
    }
  }
  return inst;
}

Result<CaseOutputs> run_reference(const CaseInstance& instance) {
  const Task& task = *instance.task;
  const ReferenceFn* fn = find_reference(task.key());
  if (!fn) return make_error("reference.missing", "no C++ reference registered for " + task.key());
  // Outputs and in-place tensors are copies the reference writes; inputs are
  // read where they are (large performance cases are hundreds of MB), which
  // is why references must never write an input.
  CaseOutputs out;
  RefArgs args = instance.ref_args();
  for (const auto& p : task.params) {
    if (!p.is_written()) continue;
    if (p.kind == ParamKind::Tensor) {
      if (instance.none.count(p.name)) continue;
      if (p.role == TensorRole::View && p.alias == AliasRule::Required) continue;  // answered with set_view
      args.tensors[p.name] = &out.tensors.emplace(p.name, instance.tensors.at(p.name)).first->second;
    } else if (p.role != TensorRole::View) {
      auto& items = out.lists[p.name];
      items = instance.lists.at(p.name).items;
      auto& ptrs = args.lists[p.name];
      ptrs.clear();
      for (auto& item : items) ptrs.push_back(item ? &*item : nullptr);
    }
  }
  try {
    (*fn)(args);
  } catch (const std::exception& e) {
    return make_error("reference.failed", "reference of " + task.key() + " failed on case " + instance.label() + ": " + e.what());
  }
  out.views = std::move(args.views);
  out.list_views = std::move(args.list_views);
  out.scalars = std::move(args.scalar_results);
  for (const auto& p : task.params) {
    const std::string where = "reference of " + task.key() + " on case " + instance.label();
    if (p.kind == ParamKind::ScalarOutput && !out.scalars.count(p.name))
      return make_error("reference.failed", where + " did not set the scalar result '" + p.name + "'");
    if (p.kind == ParamKind::Tensor && p.role == TensorRole::View && p.alias == AliasRule::Required && !out.views.count(p.name))
      return make_error("reference.failed", where + " did not answer the view '" + p.name + "'");
    if (p.kind == ParamKind::TensorList && p.role == TensorRole::View &&
        out.list_views[p.name].size() != instance.lists.at(p.name).items.size())
      return make_error("reference.failed", where + " did not answer every view of the list '" + p.name + "'");
  }
  return out;
}

Result<double> evaluate_case_expression(const CaseInstance& instance, const std::string& expression) {
  return evaluate_expression(expression, context_for(instance));
}

Result<HostTensor> materialize_view(const HostTensor& base, const ViewResult& view) {
  const int64_t storage = base.storage_elements();
  int64_t low = view.storage_offset, high = view.storage_offset, numel = 1;
  for (size_t d = 0; d < view.sizes.size(); ++d) {
    numel *= view.sizes[d];
    const int64_t span = (view.sizes[d] - 1) * view.strides[d];
    (span < 0 ? low : high) += view.sizes[d] > 0 ? span : 0;
  }
  if (numel > 0 && (low < 0 || high >= storage))
    return make_error("view.outside", "the reference's view [" + std::to_string(low) + ", " + std::to_string(high) +
                                          "] leaves the input's storage of " + std::to_string(storage) + " elements");
  HostTensor t(base.dtype(), view.sizes, view.strides, 0, view.storage_offset);
  t.storage() = base.storage();
  return t;
}

bool same_outputs(const CaseOutputs& a, const CaseOutputs& b, std::string& what) {
  // The elements of the views only: gaps hold each call's own poison.
  auto same_tensor = [](const HostTensor& x, const HostTensor& y) {
    if (x.sizes() != y.sizes() || x.strides() != y.strides() || x.dtype() != y.dtype()) return false;
    const int32_t size = dtype_size(x.dtype());
    OffsetWalker w(x, 0);
    for (int64_t k = 0; k < x.numel(); ++k, w.next())
      if (std::memcmp(x.data() + w.offset() * size, y.data() + w.offset() * size, static_cast<size_t>(size)) != 0) return false;
    return true;
  };
  for (const auto& [name, t] : a.tensors) {
    // A view-or-copy output that became an alias left its pre-allocated memory
    // (each call's poison) alone: its descriptor is compared below instead.
    if (auto seen = a.observed_views.find(name); seen != a.observed_views.end() && seen->second.where != ViewObservation::Where::Unchanged)
      continue;
    auto it = b.tensors.find(name);
    if (it == b.tensors.end() || !same_tensor(t, it->second)) {
      what = "output '" + name + "'";
      return false;
    }
  }
  for (const auto& [name, items] : a.lists) {
    auto it = b.lists.find(name);
    if (it == b.lists.end() || it->second.size() != items.size()) {
      what = "list '" + name + "'";
      return false;
    }
    for (size_t k = 0; k < items.size(); ++k)
      if (items[k].has_value() != it->second[k].has_value() || (items[k] && !same_tensor(*items[k], *it->second[k]))) {
        what = "list '" + name + "' item " + std::to_string(k);
        return false;
      }
  }
  for (const auto& [name, v] : a.observed_views) {
    auto it = b.observed_views.find(name);
    if (it == b.observed_views.end() || it->second.where != v.where || it->second.alias_param != v.alias_param ||
        !same_view(it->second.view, v.view)) {
      what = "view '" + name + "'";
      return false;
    }
  }
  for (const auto& [name, v] : a.scalars) {
    auto it = b.scalars.find(name);
    if (it == b.scalars.end() || std::memcmp(&it->second, &v, sizeof v) != 0) {
      what = "scalar result '" + name + "'";
      return false;
    }
  }
  return true;
}

CaseCheck check_outputs(const CaseInstance& inst, const CaseOutputs& expected, const CaseOutputs& got) {
  CaseCheck c;
  c.name = inst.task->is_overload ? inst.task->overload + ":" + inst.spec->name : inst.spec->name;
  c.dtype = inst.dtype_label();
  c.status = "ok";
  const Task& task = *inst.task;
  double reduction = 1;
  if (auto r = evaluate_case_expression(inst, task.tolerance.reduction)) reduction = std::max(1.0, *r);

  // Views and host scalars: always by metadata / exactly, whatever the check kind.
  for (const auto& p : task.params) {
    if (p.kind == ParamKind::ScalarOutput) {
      auto e = expected.scalars.find(p.name);
      auto g = got.scalars.find(p.name);
      ++c.checked;
      if (e == expected.scalars.end()) {
        fail_with(c, p.name, "reference-error", "the reference gave no scalar result '" + p.name + "'");
      } else if (g == got.scalars.end()) {
        fail_with(c, p.name, "missing", "no scalar result '" + p.name + "' came back");
      } else if (!same_scalar(e->second, g->second)) {
        fail_with(c, p.name, "mismatch", "scalar result '" + p.name + "': expected " + format_scalar(e->second) + ", got " + format_scalar(g->second));
        c.expected = format_scalar(e->second);
        c.got = format_scalar(g->second);
      }
    } else if (p.kind == ParamKind::Tensor && p.role == TensorRole::View && !inst.none.count(p.name)) {
      auto seen = got.observed_views.find(p.name);
      if (seen == got.observed_views.end()) {
        fail_with(c, p.name, "missing", "no descriptor came back for view '" + p.name + "'");
        continue;
      }
      auto ev = expected.views.find(p.name);
      auto ec = expected.tensors.find(p.name);
      auto gc = got.tensors.find(p.name);
      check_view(inst, p, ev == expected.views.end() ? nullptr : &ev->second, ec == expected.tensors.end() ? nullptr : &ec->second,
                 seen->second, gc == got.tensors.end() ? nullptr : &gc->second, p.name, c);
    } else if (p.kind == ParamKind::TensorList && p.role == TensorRole::View) {
      auto seen = got.observed_list_views.find(p.name);
      auto ev = expected.list_views.find(p.name);
      const size_t n = inst.lists.at(p.name).items.size();
      if (seen == got.observed_list_views.end() || seen->second.size() != n || ev == expected.list_views.end() || ev->second.size() != n) {
        fail_with(c, p.name, "missing", "the views of list '" + p.name + "' did not all come back");
        continue;
      }
      for (size_t k = 0; k < n; ++k)
        check_view(inst, p, &ev->second[k], nullptr, seen->second[k], nullptr, p.name + "[" + std::to_string(k) + "]", c);
    } else if (p.kind == ParamKind::Tensor && p.role == TensorRole::Scratch && p.scratch_zero_after) {
      const HostTensor& t = got.tensors.at(p.name);
      ++c.checked;
      if (std::any_of(t.storage().begin(), t.storage().end(), [](std::byte b) { return b != std::byte{0}; }))
        fail_with(c, p.name, "scratch-not-zero", "scratch '" + p.name + "' must be all zero again when the entry returns");
    }
  }

  if (task.check == CheckKind::Statistical) {
    check_statistical(inst, expected, got, c);
  } else if (task.check == CheckKind::Sort || task.check == CheckKind::Topk) {
    check_order(inst, expected, got, c);
  } else if (task.check == CheckKind::Custom) {
    const CheckFn* fn = find_check(task.key());
    if (!fn) {
      fail_with(c, "", "spec-error", "no custom check registered for " + task.key());
    } else {
      RefArgs inputs = inst.ref_args(), want = outputs_as_args(inst, expected), have = outputs_as_args(inst, got);
      (*fn)(CheckContext{inputs, want, have}, c);
    }
  }
  // Elementwise comparison of the outputs the kind above does not cover.
  const bool elementwise_rest = task.check == CheckKind::Elementwise;
  for (const auto& p : task.params) {
    if (!p.is_written() || p.role == TensorRole::View || p.role == TensorRole::Scratch) continue;
    const OutputRule::Mode mode = output_mode(task, p.name);
    if (mode == OutputRule::Mode::None) continue;
    // Outputs named by a per-output rule are always compared; the rest when the check is elementwise.
    const bool ruled = task.output_rules.count(p.name) > 0;
    if (!elementwise_rest && !ruled) continue;
    if ((task.check == CheckKind::Sort || task.check == CheckKind::Topk) && (p.name == task.order.values || p.name == task.order.indices)) continue;
    if (p.kind == ParamKind::Tensor) {
      if (inst.none.count(p.name)) continue;
      const HostTensor& e = expected.tensors.at(p.name);
      const HostTensor& g = got.tensors.at(p.name);
      check_elementwise(p.name, e, g, comparison_for(task, p.name, g.dtype(), reduction), c);
    } else {
      const auto& e = expected.lists.at(p.name);
      const auto& g = got.lists.at(p.name);
      for (size_t k = 0; k < e.size() && k < g.size(); ++k) {
        if (!e[k] || !g[k]) continue;
        check_elementwise(p.name + "[" + std::to_string(k) + "]", *e[k], *g[k], comparison_for(task, p.name, g[k]->dtype(), reduction), c);
      }
    }
  }
  c.passed = c.mismatches == 0;
  if (!c.passed && c.message.empty()) {
    std::ostringstream os;
    os << c.mismatches << " of " << c.checked << " elements wrong; first at " << c.output << format_index(c.first_bad_index)
       << ": expected " << c.expected << ", got " << c.got;
    c.message = os.str();
  } else if (!c.passed && !c.first_bad_index.empty()) {
    c.message += " (at " + c.output + format_index(c.first_bad_index) + ")";
  }
  return c;
}

// A hash of the bits of every output element (logical order; contiguous
// tensors as one span): equal outputs hash equal, so two calls can be
// compared without keeping a copy of either.
uint64_t output_bits_hash(const CaseOutputs& outs) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  auto mix = [&h](uint64_t x) {
    h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  };
  auto tensor = [&](const HostTensor& t) {
    const size_t item = static_cast<size_t>(dtype_size(t.dtype()));
    if (t.is_contiguous()) {
      const std::byte* p = t.data();
      const size_t bytes = static_cast<size_t>(t.numel()) * item;
      size_t i = 0;
      for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        mix(w);
      }
      uint64_t tail = 0;
      std::memcpy(&tail, p + i, bytes - i);
      mix(tail ^ bytes);
      return;
    }
    // An element may be wider than one word (complex128 is 16 bytes).
    for (int64_t k = 0; k < t.numel(); ++k) {
      const std::byte* e = t.data() + t.offset_of_linear(k) * static_cast<int64_t>(item);
      for (size_t at = 0; at < item; at += sizeof(uint64_t)) {
        uint64_t w = 0;
        std::memcpy(&w, e + at, std::min(sizeof w, item - at));
        mix(w);
      }
    }
  };
  for (const auto& [name, t] : outs.tensors) tensor(t);
  for (const auto& [name, items] : outs.lists)
    for (const auto& item : items)
      if (item) tensor(*item);
  for (const auto& [name, sc] : outs.scalars) {
    uint64_t w = 0;
    std::memcpy(&w, &sc.v, std::min(sizeof w, sizeof sc.v));
    mix(w);
  }
  return h;
}

}  // namespace kgb
