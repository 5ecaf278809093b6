#include <algorithm>

#include "kgb/agent/policy.h"
#include "policies/common.h"

namespace kgb::agent {

PolicyRegistry::PolicyRegistry() {
  // Built-ins are added here rather than by static registrars: objects of a
  // static library that nothing refers to never reach the executable.
  policies_.push_back(policies::sample_policy());
  policies_.push_back(policies::refine_policy());
  policies_.push_back(policies::parallel_refine_policy());
  policies_.push_back(policies::tool_agent_policy());
}

PolicyRegistry& PolicyRegistry::global() {
  static PolicyRegistry registry;
  return registry;
}

void PolicyRegistry::add(PolicyInfo info) {
  auto it = std::find_if(policies_.begin(), policies_.end(), [&](const PolicyInfo& p) { return p.name == info.name; });
  if (it != policies_.end()) *it = std::move(info);
  else policies_.push_back(std::move(info));
}

const PolicyInfo* PolicyRegistry::find(const std::string& name) const {
  auto it = std::find_if(policies_.begin(), policies_.end(), [&](const PolicyInfo& p) { return p.name == name; });
  return it == policies_.end() ? nullptr : &*it;
}

std::vector<const PolicyInfo*> PolicyRegistry::list() const {
  std::vector<const PolicyInfo*> out;
  for (const auto& p : policies_) out.push_back(&p);
  std::sort(out.begin(), out.end(), [](const PolicyInfo* a, const PolicyInfo* b) { return a->name < b->name; });
  return out;
}

namespace {

bool same_kind(const nlohmann::json& def, const nlohmann::json& v) {
  if (def.is_null() || v.is_null()) return true;  // null defaults take anything; null values mean "unset"
  if (def.is_number() && v.is_number()) return !def.is_number_integer() || v.is_number_integer();
  return def.type() == v.type();
}

}  // namespace

Result<nlohmann::json> PolicyRegistry::resolve_params(const std::string& name, const nlohmann::json& given) const {
  const PolicyInfo* info = find(name);
  if (!info) {
    std::string known;
    for (const auto* p : list()) known += (known.empty() ? "" : ", ") + p->name;
    return make_error("policy.unknown", "unknown policy '" + name + "' (known: " + known + ")");
  }
  nlohmann::json params = info->defaults.is_object() ? info->defaults : nlohmann::json::object();
  if (!given.is_null() && !given.is_object()) return make_error("policy.params", name + ": parameters must be a table");
  if (given.is_object())
    for (const auto& [key, value] : given.items()) {
      if (!params.contains(key)) {
        std::string known;
        for (const auto& [k, v] : params.items()) known += (known.empty() ? "" : ", ") + k;
        return make_error("policy.params", name + ": unknown parameter '" + key + "' (parameters: " + known + ")");
      }
      if (!same_kind(params[key], value))
        return make_error("policy.params", name + ": parameter '" + key + "' must be like " + params[key].dump() +
                                               ", not " + value.dump());
      params[key] = value;
    }
  return params;
}

Result<std::unique_ptr<Policy>> PolicyRegistry::make(const std::string& name, const nlohmann::json& resolved) const {
  const PolicyInfo* info = find(name);
  if (!info) return make_error("policy.unknown", "unknown policy '" + name + "'");
  if (!info->make) return make_error("policy.unknown", "policy '" + name + "' has no factory");
  return info->make(resolved);
}

}  // namespace kgb::agent
