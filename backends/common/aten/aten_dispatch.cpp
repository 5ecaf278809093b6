#include "aten_dispatch.h"

#include <ATen/core/dispatch/Dispatcher.h>
#if __has_include(<torch/version.h>)
#include <torch/version.h>  // TORCH_VERSION_MAJOR: float8 dtypes exist from 2.1 on
#endif
#include <ATen/core/function_schema.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace kgb::aten_dispatch {
namespace {

using wire::ArgKind;
using wire::Role;

// kgb::ScalarType numbering (task.h), as SignatureParam::scalar_type carries it.
enum class Scalar : uint8_t { Int64 = 0, Float64 = 1, Bool = 2, Complex = 3, AtenScalar = 4, Enum = 5, IntList = 6 };

bool is_optional(const c10::TypePtr& t) { return t->kind() == c10::TypeKind::OptionalType; }
c10::TypePtr element_of(const c10::TypePtr& t) {
  return is_optional(t) ? t->expectRef<c10::OptionalType>().getElementType() : t;
}
bool is_int(const c10::TypePtr& t) { return t->kind() == c10::TypeKind::IntType || t->kind() == c10::TypeKind::SymIntType; }
bool is_int_list(const c10::TypePtr& t) {
  return t->kind() == c10::TypeKind::ListType && is_int(t->containedType(0));
}

const std::string* enum_name(const wire::SignatureParam& p, int64_t number) {
  for (size_t k = 0; k < p.enum_numbers.size(); ++k)
    if (p.enum_numbers[k] == number) return &p.enum_names[k];
  return nullptr;
}

// The scalar a parameter holds: by value, or pointed at for optional ones.
struct ScalarArg {
  Scalar type;
  int64_t i = 0;
  double f = 0;
  c10::complex<double> c;
  kgb_scalar s{};
};

ScalarArg read_scalar(const wire::SignatureParam& p, const kgb_arg& a) {
  ScalarArg v{static_cast<Scalar>(p.scalar_type)};
  const bool by_pointer = static_cast<ArgKind>(p.kind) == ArgKind::OptScalar;
  switch (v.type) {
    case Scalar::Float64: v.f = by_pointer ? *static_cast<const double*>(a.opt) : a.f; break;
    case Scalar::AtenScalar: v.s = by_pointer ? *static_cast<const kgb_scalar*>(a.opt) : a.s; break;
    case Scalar::Complex: v.c = {a.c.re, a.c.im}; break;
    case Scalar::Bool: case Scalar::Enum: v.i = by_pointer ? *static_cast<const int*>(a.opt) : a.i; break;
    default: v.i = by_pointer ? *static_cast<const int64_t*>(a.opt) : a.i; break;
  }
  return v;
}

at::Scalar to_aten_scalar(const ScalarArg& v) {
  switch (v.type) {
    case Scalar::Float64: return at::Scalar(v.f);
    case Scalar::Complex: return at::Scalar(v.c);
    case Scalar::Bool: return at::Scalar(v.i != 0);
    case Scalar::AtenScalar:
      switch (v.s.dtype) {
        case KGB_BOOL: return at::Scalar(v.s.v.i != 0);
        case KGB_F64: return at::Scalar(v.s.v.f);
        case KGB_C128: return at::Scalar(c10::complex<double>(v.s.v.c.re, v.s.v.c.im));
        default: return at::Scalar(static_cast<int64_t>(v.s.v.i));
      }
    default: return at::Scalar(static_cast<int64_t>(v.i));
  }
}

std::optional<at::ScalarType> dtype_named(const std::string& name) {
  static const std::map<std::string, int32_t> names{
      {"bool", KGB_BOOL}, {"i8", KGB_I8},     {"u8", KGB_U8},     {"i16", KGB_I16},   {"i32", KGB_I32},
      {"i64", KGB_I64},   {"f16", KGB_F16},   {"bf16", KGB_BF16}, {"f32", KGB_F32},   {"f64", KGB_F64},
      {"c64", KGB_C64},   {"c128", KGB_C128}, {"f8e4m3fn", KGB_F8E4M3FN}, {"f8e5m2", KGB_F8E5M2}};
  auto it = names.find(name);
  if (it == names.end()) return std::nullopt;
  at::ScalarType t = scalar_type_of(it->second);
  if (t == at::ScalarType::Undefined) return std::nullopt;
  return t;
}

// One of our arguments as the value the schema's argument expects.
std::optional<c10::IValue> convert(const c10::Argument& arg, const wire::SignatureParam& p, const kgb_arg& a,
                                   const at::Device& device, std::string& why) {
  const auto kind = static_cast<ArgKind>(p.kind);
  const c10::TypePtr& full = arg.type();
  const bool none = (kind == ArgKind::Tensor && !a.t) || (kind == ArgKind::OptScalar && !a.opt);
  if (none) {
    if (is_optional(full)) return c10::IValue();
    why = "'" + p.name + "' is None but the operator's argument is not optional";
    return std::nullopt;
  }
  const c10::TypePtr t = element_of(full);
  // libtorch schemas type a ScalarType argument as int (Argument::type, in
  // 1.13 and 2.x alike) and keep ScalarType in real_type only: its value must
  // be c10's number for the enum's dtype name, never the entry's own number.
  const bool scalar_type_arg = element_of(arg.real_type())->kind() == c10::TypeKind::ScalarTypeType;
  auto mismatch = [&]() -> std::optional<c10::IValue> {
    why = "'" + p.name + "' cannot be passed as " + full->str();
    return std::nullopt;
  };
  switch (kind) {
    case ArgKind::Tensor:
      if (t->kind() != c10::TypeKind::TensorType) return mismatch();
      return c10::IValue(view_of(a.t, device));
    case ArgKind::List: {
      if (t->kind() != c10::TypeKind::ListType) return mismatch();
      const c10::TypePtr item = t->containedType(0);
      const kgb_tensor_list* l = a.l;
      if (item->kind() == c10::TypeKind::TensorType) {
        c10::List<at::Tensor> list;
        for (int64_t k = 0; k < l->count; ++k) {
          if (!l->items[k]) return mismatch();
          list.push_back(view_of(l->items[k], device));
        }
        return c10::IValue(list);
      }
      if (is_optional(item) && element_of(item)->kind() == c10::TypeKind::TensorType) {
        c10::List<c10::optional<at::Tensor>> list;
        for (int64_t k = 0; k < l->count; ++k)
          list.push_back(l->items[k] ? c10::optional<at::Tensor>(view_of(l->items[k], device)) : c10::nullopt);
        return c10::IValue(list);
      }
      return mismatch();
    }
    case ArgKind::IntList: {
      std::vector<int64_t> values(a.il.values, a.il.values + a.il.count);
      if (is_int_list(t)) return c10::IValue(values);
      if (is_int(t) && values.size() == 1) return c10::IValue(values[0]);
      return mismatch();
    }
    case ArgKind::Scalar: case ArgKind::OptScalar: {
      const ScalarArg v = read_scalar(p, a);
      const bool integral = v.type == Scalar::Int64 || v.type == Scalar::Bool || v.type == Scalar::Enum ||
                            (v.type == Scalar::AtenScalar && (v.s.dtype == KGB_I64 || v.s.dtype == KGB_BOOL));
      switch (scalar_type_arg ? c10::TypeKind::ScalarTypeType : t->kind()) {
        case c10::TypeKind::IntType: case c10::TypeKind::SymIntType:
          if (!integral) return mismatch();
          return c10::IValue(v.type == Scalar::AtenScalar ? v.s.v.i : v.i);
        case c10::TypeKind::FloatType:
          return c10::IValue(v.type == Scalar::Float64 ? v.f : to_aten_scalar(v).toDouble());
        case c10::TypeKind::BoolType:
          if (!integral) return mismatch();
          return c10::IValue((v.type == Scalar::AtenScalar ? v.s.v.i : v.i) != 0);
        case c10::TypeKind::NumberType: return c10::IValue(to_aten_scalar(v));
        case c10::TypeKind::ComplexType: return c10::IValue(to_aten_scalar(v).toComplexDouble());
        case c10::TypeKind::StringType: {
          if (v.type != Scalar::Enum) return mismatch();
          const std::string* n = enum_name(p, v.i);
          if (!n) return mismatch();
          return c10::IValue(*n);
        }
        case c10::TypeKind::ScalarTypeType: {
          const std::string* n = v.type == Scalar::Enum ? enum_name(p, v.i) : nullptr;
          auto st = n ? dtype_named(*n) : std::nullopt;
          if (!st) return mismatch();
          return c10::IValue(static_cast<int64_t>(*st));
        }
        case c10::TypeKind::ListType:
          if (is_int_list(t) && integral) return c10::IValue(std::vector<int64_t>{v.type == Scalar::AtenScalar ? v.s.v.i : v.i});
          return mismatch();
        default: return mismatch();
      }
    }
    case ArgKind::None: return is_optional(full) ? std::optional<c10::IValue>(c10::IValue()) : mismatch();
    case ArgKind::ScalarOut: return mismatch();
  }
  return mismatch();
}

// The schemas of an operator name, found once.
std::vector<c10::OperatorHandle> overloads_of(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<c10::OperatorHandle>> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  std::vector<c10::OperatorHandle> found;
  for (const auto& op : c10::Dispatcher::singleton().getAllOpNames())
    if (op.name == name)
      if (auto h = c10::Dispatcher::singleton().findSchema(op)) found.push_back(*h);
  return cache.emplace(name, found).first->second;
}

// The TensorOptions keywords of factory functions (zeros, full, arange,
// ones_like, ...). Their out= variants drop them: the out tensor already has
// the dtype, layout and device they would choose.
bool is_tensor_option(const c10::Argument& a) {
  static const char* const names[] = {"dtype", "layout", "device", "pin_memory"};
  return a.kwarg_only() && is_optional(a.type()) &&
         std::any_of(std::begin(names), std::end(names), [&](const char* n) { return a.name() == n; });
}

// Functional schemas whose out= variant failed once (see call_operator).
std::mutex refused_mutex;
std::set<std::string> refused_out_variants;
std::string schema_key(const c10::FunctionSchema& s) { return s.name() + "." + s.overload_name(); }
bool out_variant_refused(const c10::FunctionSchema& functional) {
  std::lock_guard lock(refused_mutex);
  return refused_out_variants.count(schema_key(functional)) > 0;
}
void refuse_out_variant(const c10::FunctionSchema& functional) {
  std::lock_guard lock(refused_mutex);
  refused_out_variants.insert(schema_key(functional));
}

// The out= variant of a functional schema: the same arguments by name, plus
// keyword-only written tensors; a factory's TensorOptions keywords may be
// missing from it (zeros.out, full.out, arange.start_out, ones_like.out), and
// it may end in extra arguments that have defaults.
std::optional<c10::OperatorHandle> out_variant(const c10::FunctionSchema& functional) {
  for (const auto& h : overloads_of(functional.name())) {
    const auto& s = h.schema();
    if (s.overload_name() == functional.overload_name()) continue;
    std::vector<const c10::Argument*> inputs;
    size_t outs = 0;
    for (const auto& a : s.arguments()) {
      if (a.is_out()) ++outs;
      else inputs.push_back(&a);
    }
    if (outs == 0) continue;
    const bool keeps_options = inputs.size() == functional.arguments().size();
    std::vector<const c10::Argument*> wanted;
    for (const auto& a : functional.arguments())
      if (keeps_options || !is_tensor_option(a)) wanted.push_back(&a);
    // The out variant may add trailing arguments with defaults (arange.start
    // runs as arange.start_out with step=1).
    if (inputs.size() < wanted.size()) continue;
    // Same names and types: add.Scalar_out and the Dimname overloads share names with others.
    bool same = true;
    for (size_t k = 0; k < inputs.size() && same; ++k)
      same = k < wanted.size() ? inputs[k]->name() == wanted[k]->name() && inputs[k]->type()->str() == wanted[k]->type()->str()
                               : inputs[k]->default_value().has_value();
    if (same) return h;
  }
  return std::nullopt;
}

kgb_scalar to_kgb_scalar(const at::Scalar& s) {
  kgb_scalar r{};
  if (s.isBoolean()) r.dtype = KGB_BOOL, r.v.i = s.toBool();
  else if (s.isIntegral(false)) r.dtype = KGB_I64, r.v.i = s.toLong();
  else if (s.isComplex()) r.dtype = KGB_C128, r.v.c = {s.toComplexDouble().real(), s.toComplexDouble().imag()};
  else r.dtype = KGB_F64, r.v.f = s.toDouble();
  return r;
}

// Our view descriptor takes the metadata of a tensor ATen returned.
void describe(kgb_tensor* out, const at::Tensor& v) {
  // From the storage, not data_ptr(): an empty tensor's data_ptr() is NULL,
  // but an empty view still lies at its offset inside its input.
  // (data() is const in libtorch 2.x, mutable in 1.13: the view is an output either way.)
  auto* base = const_cast<char*>(static_cast<const char*>(v.storage().data()));
  out->data = base + v.storage_offset() * static_cast<int64_t>(v.itemsize());
  out->rank = static_cast<int32_t>(v.dim());
  for (int64_t d = 0; d < v.dim() && d < KGB_MAX_RANK; ++d) {
    out->sizes[d] = v.size(d);
    out->strides[d] = v.stride(d);
  }
  out->storage_offset = v.storage_offset();
}

// Puts one returned value into our next unfilled output.
bool take_return(const c10::IValue& value, const wire::SignatureParam& p, const kgb_arg& a, const at::Device& device,
                 const std::vector<const void*>& input_storages, std::string& why) {
  const auto kind = static_cast<ArgKind>(p.kind);
  const auto role = static_cast<Role>(p.role);
  if (kind == ArgKind::ScalarOut) {
    if (!value.isScalar()) {
      why = "'" + p.name + "' expects a scalar, the operator returned " + value.tagKind();
      return false;
    }
    *a.out = to_kgb_scalar(value.toScalar());
    return true;
  }
  if (kind == ArgKind::Tensor && value.isTensor()) {
    const at::Tensor r = value.toTensor();
    if (role == Role::View) {
      // An alias of one of our inputs is described; a fresh tensor (ATen
      // copied) goes into the pre-allocated output, whose descriptor stays.
      const bool alias = std::find(input_storages.begin(), input_storages.end(), r.storage().data()) != input_storages.end();
      if (alias) {
        describe(a.t, r);
        return true;
      }
      if (!a.t->data) {
        why = "'" + p.name + "' must be a view, but the operator returned a new tensor";
        return false;
      }
    }
    view_of(a.t, device).copy_(r);
    return true;
  }
  if (kind == ArgKind::List && value.isTensorList()) {
    const auto list = value.toTensorVector();
    if (static_cast<int64_t>(list.size()) != a.l->count) {
      why = "'" + p.name + "' has " + std::to_string(a.l->count) + " items, the operator returned " + std::to_string(list.size());
      return false;
    }
    for (size_t k = 0; k < list.size(); ++k) {
      if (role == Role::View) describe(a.l->items[k], list[k]);
      else view_of(a.l->items[k], device).copy_(list[k]);
    }
    return true;
  }
  why = "cannot take a returned " + std::string(value.tagKind()) + " into '" + p.name + "'";
  return false;
}

}  // namespace

at::ScalarType scalar_type_of(int32_t dtype) {
  switch (dtype) {
    case KGB_BOOL: return at::kBool;
    case KGB_I8: return at::kChar;
    case KGB_U8: return at::kByte;
    case KGB_I16: return at::kShort;
    case KGB_I32: return at::kInt;
    case KGB_I64: return at::kLong;
    case KGB_F16: return at::kHalf;
    case KGB_BF16: return at::kBFloat16;
    case KGB_F32: return at::kFloat;
    case KGB_F64: return at::kDouble;
    case KGB_C64: return at::kComplexFloat;
    case KGB_C128: return at::kComplexDouble;
#if defined(TORCH_VERSION_MAJOR) && (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1))
    case KGB_F8E4M3FN: return at::ScalarType::Float8_e4m3fn;
    case KGB_F8E5M2: return at::ScalarType::Float8_e5m2;
#endif
    default: return at::ScalarType::Undefined;
  }
}

int32_t kgb_dtype_of(at::ScalarType t) {
  for (int32_t d = 0; d <= KGB_F8E5M2; ++d)
    if (scalar_type_of(d) == t && t != at::ScalarType::Undefined) return d;
  return -1;
}

int64_t storage_extent(const kgb_tensor* t) {
  int64_t extent = t->storage_offset;
  if (kgb_numel(t) > 0) {
    extent += 1;
    for (int32_t d = 0; d < t->rank; ++d)
      if (t->strides[d] > 0) extent += (t->sizes[d] - 1) * t->strides[d];
  }
  return extent;
}

at::Tensor view_of(const kgb_tensor* t, const at::Device& device) {
  const at::ScalarType st = scalar_type_of(t->dtype);
  const int64_t elem = kgb_dtype_size(t->dtype);
  void* base = static_cast<char*>(t->data) - t->storage_offset * elem;
  const at::TensorOptions options = at::TensorOptions().dtype(st).device(device);
  const at::IntArrayRef sizes(t->sizes, t->rank), strides(t->strides, t->rank);
  at::Tensor v;
  if (t->storage_offset == 0) {
    v = at::for_blob(base, sizes).strides(strides).options(options).make_tensor();
  } else {
    // libtorch 1.13's for_blob adds storage_offset to the storage size in
    // bytes, not elements: the storage comes out too small and as_strided
    // (expand, ...) then rejects a view inside it. The storage is made to
    // span the view's whole extent instead, and the view taken from it.
    v = at::for_blob(base, {storage_extent(t)}).options(options).make_tensor().as_strided(sizes, strides, t->storage_offset);
  }
  if (t->flags & KGB_TENSOR_CONJ) v._set_conj(true);
  if (t->flags & KGB_TENSOR_NEG) v._set_neg(true);
  return v;
}

CallResult call_operator(const wire::EntrySignature& entry, const kgb_arg* args, int32_t nargs, const at::Device& device) {
  CallResult result;
  auto fail = [&](int status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    return result;
  };
  if (entry.upstream_name.rfind("aten::", 0) != 0) return fail(KGB_ERR_UNSUPPORTED, entry.key + " is not an ATen operator");
  if (nargs != static_cast<int32_t>(entry.params.size())) return fail(KGB_ERR_INVALID, "argument count differs from the entry");
  for (int32_t i = 0; i < nargs; ++i) {
    const auto& p = entry.params[i];
    const auto kind = static_cast<ArgKind>(p.kind);
    if (kind == ArgKind::Tensor && args[i].t && args[i].t->data && scalar_type_of(args[i].t->dtype) == at::ScalarType::Undefined)
      return fail(KGB_ERR_UNSUPPORTED, "'" + p.name + "' has a dtype this libtorch lacks");
  }
  auto functional = c10::Dispatcher::singleton().findSchema({entry.upstream_name, entry.overload});
  if (!functional) return fail(KGB_ERR_UNSUPPORTED, "no ATen schema " + entry.upstream_name + (entry.overload.empty() ? "" : "." + entry.overload));
  const c10::FunctionSchema& fs = functional->schema();

  // Written tensors of ours: outputs and views take the operator's results,
  // inouts are written through the operator's own (a!) arguments.
  std::map<std::string, int> ours;
  for (int i = 0; i < nargs; ++i) ours[entry.params[i].name] = i;
  bool needs_results = false;
  for (const auto& p : entry.params) {
    const auto kind = static_cast<ArgKind>(p.kind);
    const auto role = static_cast<Role>(p.role);
    if (kind == ArgKind::ScalarOut || ((kind == ArgKind::Tensor || kind == ArgKind::List) && (role == Role::Output || role == Role::View)))
      needs_results = true;
  }
  c10::OperatorHandle op = *functional;
  bool out_call = false;
  if (needs_results && !out_variant_refused(fs)) {
    if (auto out = out_variant(fs)) {
      bool all_ours = true;
      for (const auto& a : out->schema().arguments())
        if (a.is_out()) all_ours = all_ours && ours.count(a.name());
      bool no_views = true;
      for (const auto& p : entry.params)
        if (static_cast<Role>(p.role) == Role::View && static_cast<ArgKind>(p.kind) != ArgKind::Scalar) no_views = false;
      if (all_ours && no_views) {
        op = *out;
        out_call = true;
      }
    }
  }
  const c10::FunctionSchema& schema = op.schema();
  std::vector<c10::IValue> stack;
  std::vector<bool> used(nargs, false);
  for (const auto& a : schema.arguments()) {
    auto it = ours.find(a.name());
    if (it == ours.end()) {
      if (a.default_value()) {
        stack.push_back(*a.default_value());
      } else if (is_optional(a.type())) {
        stack.emplace_back();
      } else if (a.type()->kind() == c10::TypeKind::DeviceObjType) {
        // A required Device (to.device) is the device the call runs on: the
        // ABI has one device, where every tensor of the entry lives.
        stack.emplace_back(device);
      } else {
        return fail(KGB_ERR_UNSUPPORTED, "the entry has no argument '" + a.name() + "' of " + schema.name() + "." + schema.overload_name());
      }
      continue;
    }
    std::string why;
    auto v = convert(a, entry.params[it->second], args[it->second], device, why);
    if (!v) return fail(KGB_ERR_UNSUPPORTED, why);
    stack.push_back(std::move(*v));
    used[it->second] = true;
  }
  // A factory's TensorOptions arguments of ours are carried by the out
  // tensor in an out= call (its dtype is the one they name).
  if (out_call)
    for (const auto& a : fs.arguments())
      if (auto it = ours.find(a.name()); it != ours.end() && is_tensor_option(a) && !schema.argumentIndexWithName(a.name()))
        used[it->second] = true;
  // Every argument of ours must have been consumed, except results.
  for (int i = 0; i < nargs; ++i) {
    const auto& p = entry.params[i];
    const auto kind = static_cast<ArgKind>(p.kind);
    const auto role = static_cast<Role>(p.role);
    const bool result_param = kind == ArgKind::ScalarOut || ((kind == ArgKind::Tensor || kind == ArgKind::List) &&
                                                             (role == Role::Output || role == Role::View || role == Role::Scratch));
    if (!used[i] && !(result_param && !out_call))
      if (!(kind == ArgKind::Tensor && !args[i].t))
        return fail(KGB_ERR_UNSUPPORTED, "'" + p.name + "' has no counterpart in " + schema.name() + "." + schema.overload_name());
  }
  // Not every out= kernel honours a non-contiguous out: im2col_out (CPU and
  // CUDA, 1.13 and 2.x) resizes it to its own size, a no-op, then writes its
  // storage as if it were contiguous; 1.13's reflection_pad1d_backward
  // grad_input scrambles a stepped, padded or transposed one, and _softmax.out
  // (structured, its meta function names no strides) gets no proxy for a
  // strided out. Such outs get a contiguous tensor for
  // the call, copied into our view afterwards: the same values, written
  // only inside the view.
  std::vector<std::pair<at::Tensor, at::Tensor>> strided_outs;  // (our view, the tensor passed)
  if (out_call)
    for (size_t k = 0; k < schema.arguments().size() && k < stack.size(); ++k)
      if (schema.arguments()[k].is_out() && stack[k].isTensor() && !stack[k].toTensor().is_contiguous()) {
        const at::Tensor ours_view = stack[k].toTensor();
        at::Tensor dense = at::empty(ours_view.sizes(), ours_view.options());
        strided_outs.emplace_back(ours_view, dense);
        stack[k] = c10::IValue(dense);
      }
  try {
    op.callBoxed(&stack);
    for (auto& [view, dense] : strided_outs) view.copy_(dense);
  } catch (const std::exception& e) {
    // Some out= kernels resize their output on the way (libtorch 1.13's
    // soft_margin_loss_out writes the elementwise loss into `out` before
    // reducing it), which our fixed storage refuses. The functional overload,
    // its result copied into our outputs, computes the same: it is used from
    // then on for this operator.
    if (out_call) {
      refuse_out_variant(fs);
      return call_operator(entry, args, nargs, device);
    }
    return fail(KGB_ERR_INVALID, std::string(schema.name()) + "." + schema.overload_name() + " failed: " + e.what());
  }
  result.message = schema.name() + (schema.overload_name().empty() ? "" : "." + schema.overload_name());
  if (out_call || !needs_results) return result;
  // Functional call: the results go, in order, to our outputs, views and scalar results.
  std::vector<const void*> input_storages;
  for (int i = 0; i < nargs; ++i)
    if (static_cast<ArgKind>(entry.params[i].kind) == ArgKind::Tensor && args[i].t && args[i].t->data &&
        static_cast<Role>(entry.params[i].role) == Role::Input)
      input_storages.push_back(static_cast<const char*>(args[i].t->data) - args[i].t->storage_offset * kgb_dtype_size(args[i].t->dtype));
  size_t next = 0;
  for (int i = 0; i < nargs; ++i) {
    const auto& p = entry.params[i];
    const auto kind = static_cast<ArgKind>(p.kind);
    const auto role = static_cast<Role>(p.role);
    const bool takes = kind == ArgKind::ScalarOut ||
                       ((kind == ArgKind::Tensor || kind == ArgKind::List) && (role == Role::Output || role == Role::View));
    if (!takes) continue;
    if (next >= stack.size()) return fail(KGB_ERR_INVALID, "the operator returned fewer results than the entry has outputs");
    std::string why;
    try {
      if (!take_return(stack[next++], p, args[i], device, input_storages, why)) return fail(KGB_ERR_INVALID, why);
    } catch (const std::exception& e) {
      return fail(KGB_ERR_INVALID, "storing the result in '" + p.name + "' failed: " + e.what());
    }
  }
  return result;
}

}  // namespace kgb::aten_dispatch
