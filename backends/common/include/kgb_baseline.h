// Baselines: vendor or plain implementations timed against candidates in the
// same way (they run inside a prebuilt runner, through the uniform call).
#pragma once

#include <string>

#include "kgb_runner_abi.h"

namespace kgb {

struct BaselineEntry {
  kgb_invoke_fn invoke = nullptr;
  const char* kind = "";  // "aten", "openblas", "cublas", "plain (written here)"
};

void register_baseline(const char* task_id, const char* kind, kgb_invoke_fn fn);
const BaselineEntry* find_baseline(const std::string& task_id);

struct BaselineRegistrar {
  BaselineRegistrar(const char* task_id, const char* kind, kgb_invoke_fn fn) { register_baseline(task_id, kind, fn); }
};

}  // namespace kgb

#define KGB_BASELINE_CONCAT_INNER(a, b) a##b
#define KGB_BASELINE_CONCAT(a, b) KGB_BASELINE_CONCAT_INNER(a, b)
// KGB_REGISTER_BASELINE("aten/softmax", "aten", softmax_via_aten);
#define KGB_REGISTER_BASELINE(task_id, kind, fn) \
  static const ::kgb::BaselineRegistrar KGB_BASELINE_CONCAT(kgb_baseline_registrar_, __LINE__)(task_id, kind, fn)
