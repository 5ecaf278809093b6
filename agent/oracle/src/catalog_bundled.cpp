// The catalog of this source tree, through the harness core's task and
// platform loaders.
#include <mutex>

#include "kgb/oracle/catalog.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace kgb::oracle {
namespace {

class BundledCatalog final : public SolutionCatalog {
 public:
  explicit BundledCatalog(std::vector<kgb::Error>* errors) {
    TaskLoadReport report = load_all_tasks(tasks_root());
    if (errors) errors->insert(errors->end(), report.errors.begin(), report.errors.end());
    for (Task& task : report.tasks) {
      std::string id = task.id;
      tasks_.emplace(std::move(id), std::move(task));
    }
  }

  kgb::Result<KernelTarget> find(std::string_view task_id, std::string_view platform_name) const override {
    auto task = tasks_.find(task_id);
    if (task == tasks_.end()) return make_error("oracle.unknown-task", "no task " + std::string(task_id));
    auto platform = platform_for(platform_name);
    if (!platform) return platform.error();
    auto source = bundled_solution(task->second, platform->solution_file);
    if (!source)
      return make_error("oracle.no-solution", task->second.id + " has no bundled solution for " + platform->name);

    KernelTarget target;
    target.task_id = task->second.id;
    target.platform = platform->name;
    target.backend = platform->backend;
    target.fence_language = fence_language_for(platform->backend, platform->source_extension);
    target.source = std::move(source.value());
    target.entry = task->second.entry;
    target.entry_declaration = entry_declaration(task->second);
    for (const Param& p : task->second.params) {
      const char* kind = nullptr;
      if (p.kind == ParamKind::ScalarOutput) kind = "scalar";
      else if (p.is_written() && p.role == TensorRole::View) kind = p.kind == ParamKind::Tensor ? "view" : "view_list";
      else if (p.is_written() && p.role != TensorRole::Scratch) kind = p.kind == ParamKind::Tensor ? "tensor" : "list";
      if (!kind) continue;
      target.outputs.push_back(p.name);
      target.output_kinds.push_back(kind);
    }
    target.statistical = task->second.check == CheckKind::Statistical;
    return target;
  }

 private:
  kgb::Result<Platform> platform_for(std::string_view name) const {
    std::lock_guard lock(mutex_);
    auto it = platforms_.find(name);
    if (it != platforms_.end()) return it->second;
    auto loaded = load_platform(std::string(name));
    if (!loaded) return make_error("oracle.unknown-platform", "no platform " + std::string(name));
    platforms_.emplace(std::string(name), loaded.value());
    return loaded;
  }

  std::map<std::string, Task, std::less<>> tasks_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Platform, std::less<>> platforms_;
};

}  // namespace

std::shared_ptr<SolutionCatalog> make_bundled_catalog(std::vector<kgb::Error>* errors) {
  return std::make_shared<BundledCatalog>(errors);
}

}  // namespace kgb::oracle
