// Human- and model-readable renderings of a task: exactly what `kgb show`
// prints and what the agent's task prompt embeds.
#pragma once

#include <string>

#include "kgb/platform.h"
#include "kgb/task.h"

namespace kgb {

// One line per case: shapes, layouts, scalars and dtypes.
std::string describe_case(const Task& task, const Case& c);
// Parameters with roles, dtypes and shapes.
std::string describe_params(const Task& task);
// Tolerance, determinism, banned APIs.
std::string describe_constraints(const Task& task);
// The full statement shown to a model for a platform.
std::string render_task_statement(const Task& task, const Platform& platform);

}  // namespace kgb
