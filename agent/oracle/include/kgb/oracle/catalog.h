// What the oracle can answer with: the bundled solution of a task for a
// platform, plus the facts about its entry point that the fault injection
// needs. The default catalog reads this source tree's tasks and platform
// descriptors; tests use an in-memory one.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kgb/result.h"

namespace kgb::oracle {

struct KernelTarget {
  std::string task_id;            // "aten/softmax"
  std::string platform;           // "cpu-x86_64"
  std::string backend;            // "cpu", "cuda", "hip", "opencl"
  std::string fence_language;     // the code fence tag: "cpp", "cuda"
  std::string source;             // the bundled solution, one file
  std::string entry;              // "kgb_aten_softmax"
  std::string entry_declaration;  // extern "C" int kgb_aten_softmax(const kgb_tensor* self, ...);
  std::vector<std::string> outputs;  // written parameters (tensors, lists, views, host scalars), in order
  // Per output: "tensor", "list", "view" or "scalar" (a host kgb_scalar result).
  std::vector<std::string> output_kinds;
  bool statistical = false;       // checked statistically (random operators)
};

class SolutionCatalog {
 public:
  virtual ~SolutionCatalog() = default;
  // Errors: "oracle.unknown-task", "oracle.unknown-platform", "oracle.no-solution".
  virtual kgb::Result<KernelTarget> find(std::string_view task_id, std::string_view platform) const = 0;
};

class InMemoryCatalog final : public SolutionCatalog {
 public:
  void add(KernelTarget target);
  kgb::Result<KernelTarget> find(std::string_view task_id, std::string_view platform) const override;

 private:
  std::map<std::string, std::map<std::string, KernelTarget, std::less<>>, std::less<>> targets_;
};

// Tasks under tasks_root() and platforms under platforms_root(); loaded once,
// solutions read when asked. Task folders that fail to load are reported in
// `errors` and skipped.
std::shared_ptr<SolutionCatalog> make_bundled_catalog(std::vector<kgb::Error>* errors = nullptr);

// The fence tag a model would use for a backend's source files.
std::string fence_language_for(std::string_view backend, std::string_view source_extension);

}  // namespace kgb::oracle
