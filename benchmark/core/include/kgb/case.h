// A concrete case: a task's case bound to a dtype and a seed, with its tensors
// generated, its reference outputs computed and its checks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/result.h"
#include "kgb/task.h"
#include "kgb/tensor.h"
#include "kgb/verdict.h"

namespace kgb {

struct CaseInstance {
  const Task* task = nullptr;
  const Case* spec = nullptr;
  DType dtype = DType::F32;  // value of the type variable
  uint64_t seed = 0;
  std::map<std::string, HostTensor> tensors;  // every tensor parameter; outputs zero-filled
  std::map<std::string, double> scalars;      // every scalar parameter

  RefArgs ref_args();
  std::string label() const;  // "small/f32"
};

// The dtypes a case runs for (its own list, else the task's variants, else
// the single fixed dtype of a task without a type variable).
std::vector<DType> case_dtypes(const Task& task, const Case& c);

// Builds shapes, layouts and scalars, and draws inputs from `seed`.
Result<CaseInstance> instantiate_case(const Task& task, const Case& c, DType dtype, uint64_t seed);

// Runs the registered reference on a copy of the instance and returns the
// tensors after the call (outputs and in-place tensors written).
Result<std::map<std::string, HostTensor>> run_reference(const CaseInstance& instance);

// Checks a kernel's tensors against the reference's, following the task's
// check kind and tolerance. `got` holds every tensor after the kernel call.
CaseCheck check_outputs(const CaseInstance& instance, const std::map<std::string, HostTensor>& expected,
                        const std::map<std::string, HostTensor>& got);

// Evaluates one of the task's expressions (flops, bytes, tolerance.reduction)
// for an instance.
Result<double> evaluate_case_expression(const CaseInstance& instance, const std::string& expression);

}  // namespace kgb
