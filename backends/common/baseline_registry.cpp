#include <map>
#include <string>

#include "kgb_baseline.h"

namespace kgb {

static std::map<std::string, BaselineEntry>& registry() {
  static std::map<std::string, BaselineEntry> entries;  // filled before main by static registrars
  return entries;
}

void register_baseline(const char* task_id, const char* kind, kgb_invoke_fn fn) { registry()[task_id] = {fn, kind}; }

const BaselineEntry* find_baseline(const std::string& task_id) {
  auto it = registry().find(task_id);
  return it == registry().end() ? nullptr : &it->second;
}

}  // namespace kgb
