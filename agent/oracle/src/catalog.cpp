#include "kgb/oracle/catalog.h"

namespace kgb::oracle {

void InMemoryCatalog::add(KernelTarget target) {
  auto& by_platform = targets_[target.task_id];
  by_platform[target.platform] = std::move(target);
}

kgb::Result<KernelTarget> InMemoryCatalog::find(std::string_view task_id, std::string_view platform) const {
  auto task = targets_.find(task_id);
  if (task == targets_.end()) return make_error("oracle.unknown-task", "no task " + std::string(task_id));
  auto target = task->second.find(platform);
  if (target == task->second.end())
    return make_error("oracle.no-solution", std::string(task_id) + " has no solution for " + std::string(platform));
  return target->second;
}

std::string fence_language_for(std::string_view backend, std::string_view source_extension) {
  if (backend == "cuda" || source_extension == "cu") return "cuda";
  return "cpp";  // CPU C++, HIP C++ and OpenCL host files with embedded kernel source
}

}  // namespace kgb::oracle
