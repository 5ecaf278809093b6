#include "kgb/reference.h"

#include <cmath>
#include <stdexcept>

namespace kgb {
namespace {

// Registries are filled before main by static registrars.
template <typename Fn>
std::map<std::string, Fn>& registry() {
  static std::map<std::string, Fn> r;
  return r;
}

template <typename Fn>
const Fn* find_in(const std::string& key) {
  auto& r = registry<Fn>();
  auto it = r.find(key);
  return it == r.end() ? nullptr : &it->second;
}

[[noreturn]] void missing(const char* what, const std::string& name) {
  throw std::runtime_error(std::string("reference asked for unknown ") + what + " '" + name + "'");
}

}  // namespace

void register_reference(const std::string& key, ReferenceFn fn) { registry<ReferenceFn>()[key] = std::move(fn); }
const ReferenceFn* find_reference(const std::string& key) { return find_in<ReferenceFn>(key); }
std::vector<std::string> registered_references() {
  std::vector<std::string> ids;
  for (const auto& [id, fn] : registry<ReferenceFn>()) ids.push_back(id);
  return ids;
}
void register_generator(const std::string& name, GeneratorFn fn) { registry<GeneratorFn>()[name] = std::move(fn); }
const GeneratorFn* find_generator(const std::string& name) { return find_in<GeneratorFn>(name); }
void register_check(const std::string& key, CheckFn fn) { registry<CheckFn>()[key] = std::move(fn); }
const CheckFn* find_check(const std::string& key) { return find_in<CheckFn>(key); }

HostTensor& RefArgs::tensor(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) missing("tensor", name);
  if (!it->second) throw std::runtime_error("reference asked for tensor '" + name + "', which is None in this case");
  return *it->second;
}

HostTensor* RefArgs::optional_tensor(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) missing("tensor", name);
  return it->second;
}

const std::vector<HostTensor*>& RefArgs::list(const std::string& name) const {
  auto it = lists.find(name);
  if (it == lists.end()) missing("tensor list", name);
  return it->second;
}

const ScalarValue& RefArgs::value(const std::string& name) const {
  auto it = scalars.find(name);
  if (it == scalars.end()) missing("scalar", name);
  return it->second;
}

bool RefArgs::has(const std::string& name) const {
  if (auto it = tensors.find(name); it != tensors.end()) return it->second != nullptr;
  if (auto it = scalars.find(name); it != scalars.end()) return !it->second.none();
  return lists.count(name) > 0;
}

double RefArgs::scalar(const std::string& name) const {
  auto v = value(name).number();
  if (!v) throw std::runtime_error("reference asked for the number of scalar '" + name + "', which is " + value(name).to_string());
  return *v;
}

int64_t RefArgs::int_scalar(const std::string& name) const {
  const ScalarValue& v = value(name);
  switch (v.kind) {
    case ScalarValue::Kind::Int: case ScalarValue::Kind::Bool: case ScalarValue::Kind::Enum: return v.i;
    case ScalarValue::Kind::Float: return static_cast<int64_t>(std::llround(v.f));
    default: throw std::runtime_error("reference asked for scalar '" + name + "' as an integer; it is " + v.to_string());
  }
}

bool RefArgs::bool_scalar(const std::string& name) const { return int_scalar(name) != 0; }

std::complex<double> RefArgs::complex_scalar(const std::string& name) const {
  const ScalarValue& v = value(name);
  if (v.kind == ScalarValue::Kind::Complex) return v.c;
  return {scalar(name), 0.0};
}

kgb_scalar RefArgs::aten_scalar(const std::string& name) const {
  const ScalarValue& v = value(name);
  kgb_scalar s{};
  switch (v.kind) {
    case ScalarValue::Kind::Bool: s.dtype = KGB_BOOL; s.v.i = v.i; break;
    case ScalarValue::Kind::Int: case ScalarValue::Kind::Enum: s.dtype = KGB_I64; s.v.i = v.i; break;
    case ScalarValue::Kind::Float: s.dtype = KGB_F64; s.v.f = v.f; break;
    case ScalarValue::Kind::Complex: s.dtype = KGB_C128; s.v.c = {v.c.real(), v.c.imag()}; break;
    default: throw std::runtime_error("reference asked for scalar '" + name + "' as an ATen Scalar; it is " + v.to_string());
  }
  return s;
}

const std::vector<int64_t>& RefArgs::int_list(const std::string& name) const {
  const ScalarValue& v = value(name);
  if (v.kind != ScalarValue::Kind::IntList) throw std::runtime_error("reference asked for int list '" + name + "'; it is " + v.to_string());
  return v.list;
}

const std::string& RefArgs::enum_name(const std::string& name) const {
  const ScalarValue& v = value(name);
  if (v.kind != ScalarValue::Kind::Enum) throw std::runtime_error("reference asked for enum '" + name + "'; it is " + v.to_string());
  return v.name;
}

void RefArgs::set_view(const std::string& name, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t storage_offset) {
  if (sizes.size() != strides.size()) throw std::logic_error("set_view: sizes and strides differ in rank");
  views[name] = ViewResult{std::move(sizes), std::move(strides), storage_offset};
}

void RefArgs::set_view_item(const std::string& name, size_t index, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                            int64_t storage_offset) {
  if (sizes.size() != strides.size()) throw std::logic_error("set_view_item: sizes and strides differ in rank");
  auto& items = list_views[name];
  if (items.size() <= index) items.resize(index + 1);
  items[index] = ViewResult{std::move(sizes), std::move(strides), storage_offset};
}

void RefArgs::set_scalar(const std::string& name, kgb_scalar value) { scalar_results[name] = value; }

}  // namespace kgb
