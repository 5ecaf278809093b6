// Shared by the ATen reference tests: every correctness case of a task, for
// every dtype and two seeds, is instantiated; the C++ reference runs on it and
// libtorch runs on the very same input buffers; the two are compared with the
// task's own check (tolerance rule, sort consistency).
#pragma once

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>

#include "kgb/case.h"
#include "kgb/paths.h"
#include "kgb/task.h"
#include "kgb/tensor.h"

namespace kgb_test {

inline at::ScalarType aten_dtype(kgb::DType t) {
  switch (t) {
    case kgb::DType::Bool: return at::kBool;
    case kgb::DType::I8: return at::kChar;
    case kgb::DType::I32: return at::kInt;
    case kgb::DType::I64: return at::kLong;
    case kgb::DType::F16: return at::kHalf;
    case kgb::DType::BF16: return at::kBFloat16;
    case kgb::DType::F32: return at::kFloat;
    case kgb::DType::F64: return at::kDouble;
    case kgb::DType::C64: return at::kComplexFloat;
    case kgb::DType::C128: return at::kComplexDouble;
    case kgb::DType::U8: return at::kByte;
    case kgb::DType::I16: return at::kShort;
    case kgb::DType::F8E4M3FN: case kgb::DType::F8E5M2: return at::ScalarType::Undefined;  // not in libtorch 1.13
  }
  return at::ScalarType::Undefined;
}

// A non-owning ATen view of a host tensor: same storage, sizes and strides.
inline at::Tensor aten_view(kgb::HostTensor& t) {
  kgb_tensor v = t.view();
  return at::from_blob(v.data, at::IntArrayRef(v.sizes, v.rank), at::IntArrayRef(v.strides, v.rank),
                       at::TensorOptions().dtype(aten_dtype(t.dtype())).device(at::kCPU));
}

// `compute(instance, got)` must write libtorch's outputs into the output
// tensors of `got`, a copy of the instance's tensors (outputs zero-filled).
template <typename Compute>
void check_reference_against_aten(const std::string& task_id, Compute compute) {
  auto task = kgb::load_task_file(kgb::tasks_root() / task_id / "spec.json");
  REQUIRE_MESSAGE(task.ok(), task_id << ": " << (task.ok() ? "" : task.error().message));
  int compared = 0;
  for (const kgb::Case& c : task->correctness) {
    for (kgb::DType dtype : kgb::case_dtypes(*task, c)) {
      for (uint64_t seed : {uint64_t{0x5eed0001}, uint64_t{0x5eed0002}}) {
        auto instance = kgb::instantiate_case(*task, c, dtype, seed);
        REQUIRE_MESSAGE(instance.ok(), task_id << " " << c.name << ": "
                                               << (instance.ok() ? "" : instance.error().message));
        const std::string label = task_id + " " + instance->label();
        auto expected = kgb::run_reference(*instance);
        REQUIRE_MESSAGE(expected.ok(), label << ": " << (expected.ok() ? "" : expected.error().message));
        std::map<std::string, kgb::HostTensor> got = instance->tensors;
        compute(*instance, got);
        const kgb::CaseCheck check = kgb::check_outputs(*instance, *expected, got);
        CHECK_MESSAGE(check.passed, label << ": " << check.status << " " << check.message << " (output "
                                          << check.output << ", expected " << check.expected << ", libtorch "
                                          << check.got << ", max abs error " << check.max_abs_error << ")");
        ++compared;
      }
    }
  }
  CHECK(compared >= 2 * static_cast<int>(task->correctness.size()));
}

}  // namespace kgb_test
