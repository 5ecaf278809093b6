// The task spec loader on arbitrary text. The loader offers no way to write a
// Task back as JSON, so the invariant is what it promises for an accepted
// spec: an id '<source>/<name>' that matches the folder, at least one
// correctness case per entry (three per overload), at most 32 parameters with
// at least one written, view aliases that name input tensors, and a C
// declaration for every entry.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "kgb/task.h"

namespace {

// The loader insists that the id matches the folder it was read from; the
// folder is made up from the id the text claims, so that matching ids get
// through to the rest of the loader.
std::string spec_path_for(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) {
    const auto id = j.find("id");
    if (id != j.end() && id->is_string()) return "tasks/" + id->get<std::string>() + "/spec.json";
  }
  return "tasks/fuzz/spec/spec.json";
}

bool writes_something(const kgb::Task& entry) {
  for (const auto& p : entry.params)
    if (p.is_written() || p.kind == kgb::ParamKind::ScalarOutput) return true;
  return false;
}

void check_entry(const kgb::Task& top, const kgb::Task& entry) {
  if (entry.id != top.id || entry.entry.empty()) std::abort();
  if (entry.correctness.empty() || (entry.is_overload && entry.correctness.size() < 3)) std::abort();
  if (entry.params.empty() || entry.params.size() > 32 || !writes_something(entry)) std::abort();
  for (const auto& p : entry.params) {
    if (p.alias_of.empty()) continue;
    const kgb::Param* target = entry.param(p.alias_of);
    if (!target || !target->is_tensor() || target->role != kgb::TensorRole::Input) std::abort();
  }
  if (kgb::entry_declaration(entry).find(entry.entry) == std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto task = kgb::load_task_text(text, spec_path_for(text));
  if (!task) {
    if (task.error().message.empty()) std::abort();
    return 0;
  }
  const kgb::Task& t = *task;
  const auto slash = t.id.find('/');
  if (t.source.empty() || t.name.empty() || t.id != t.source + "/" + t.name || slash != t.source.size()) std::abort();
  if (t.spec_hash.size() != 16 || t.is_overload) std::abort();
  std::set<std::string> keys;
  for (const kgb::Task* entry : t.entries()) {
    check_entry(t, *entry);
    if (!keys.insert(entry->key()).second) std::abort();
  }
  return 0;
}
