#include "kgb/reference.h"

#include <cmath>
#include <stdexcept>

namespace kgb {

static std::map<std::string, ReferenceFn>& reference_registry() {
  static std::map<std::string, ReferenceFn> registry;  // filled before main by static registrars
  return registry;
}

void register_reference(const std::string& task_id, ReferenceFn fn) { reference_registry()[task_id] = std::move(fn); }

const ReferenceFn* find_reference(const std::string& task_id) {
  auto it = reference_registry().find(task_id);
  return it == reference_registry().end() ? nullptr : &it->second;
}

std::vector<std::string> registered_references() {
  std::vector<std::string> ids;
  for (const auto& [id, fn] : reference_registry()) ids.push_back(id);
  return ids;
}

HostTensor& RefArgs::tensor(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end() || !it->second) throw std::runtime_error("reference asked for unknown tensor '" + name + "'");
  return *it->second;
}

double RefArgs::scalar(const std::string& name) const {
  auto it = scalars.find(name);
  if (it == scalars.end()) throw std::runtime_error("reference asked for unknown scalar '" + name + "'");
  return it->second;
}

int64_t RefArgs::int_scalar(const std::string& name) const { return static_cast<int64_t>(std::llround(scalar(name))); }

}  // namespace kgb
