// Registry of C++ references (run in the harness process, on host tensors).
// Baselines live in backends/ (they run in the child, like a candidate).
// Filled by static registration: link the reference objects whole (OBJECT lib).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/tensor.h"

namespace kgb {

// Arguments of one reference call: every tensor parameter by name (inputs
// filled, outputs allocated with the case's layout) and every scalar.
struct RefArgs {
  DType dtype = DType::F32;  // value of the task's type variable in this case
  std::map<std::string, HostTensor*> tensors;
  std::map<std::string, double> scalars;

  HostTensor& tensor(const std::string& name) const;
  double scalar(const std::string& name) const;
  int64_t int_scalar(const std::string& name) const;
};

// A reference writes every output (and in-place) tensor of the call. It may
// throw std::runtime_error for arguments the spec promises never to produce:
// that is a bug in the task, reported by the validator.
using ReferenceFn = std::function<void(RefArgs&)>;

void register_reference(const std::string& task_id, ReferenceFn fn);
const ReferenceFn* find_reference(const std::string& task_id);
std::vector<std::string> registered_references();

struct ReferenceRegistrar {
  ReferenceRegistrar(const char* task_id, ReferenceFn fn) { register_reference(task_id, std::move(fn)); }
};

#define KGB_CONCAT_INNER(a, b) a##b
#define KGB_CONCAT(a, b) KGB_CONCAT_INNER(a, b)
// KGB_REGISTER_REFERENCE("aten/softmax", softmax_reference);
#define KGB_REGISTER_REFERENCE(task_id, fn) \
  static const ::kgb::ReferenceRegistrar KGB_CONCAT(kgb_reference_registrar_, __LINE__)(task_id, fn)

}  // namespace kgb
