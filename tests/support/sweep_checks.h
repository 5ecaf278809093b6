// The tasks a sweep test case iterates over, with the failures every sweep
// reports the same way: a selection that cannot be made (a bad KGB_TASK_*
// value, an unknown KGB_BASE_REF), a selected task whose spec does not load,
// an empty selection (a shard that would pass without checking anything).
#pragma once

#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "task_selection.h"

namespace kgb::test {

inline std::vector<Task> checked_sweep_tasks(Sweep sweep) {
  auto selected = sweep_tasks(sweep);
  REQUIRE_MESSAGE(selected.ok(), (selected.ok() ? "" : selected.error().message));
  for (const auto& e : selected->load_errors) CHECK_MESSAGE(false, "task not loaded: " << e.message);
  CHECK_FALSE(selected->selection.ids.empty());
  return std::move(selected->tasks);
}

}  // namespace kgb::test
