// banned-api: the operator must be implemented, not delegated to a library
// that already has it. Task::banned_apis adds the task's own bans.
#include "rules/name_rule.h"
#include "rules/rules.h"

namespace kgb::lint::detail {

NameRuleSpec banned_api_spec(const RuleSetup& setup) {
  NameRuleSpec spec;
  const std::string source = setup.task ? setup.task->source : std::string();
  if (setup.option("banned-api", "use-defaults", "true") == "true") spec.patterns.add_all(default_banned_apis(source));
  if (setup.task) spec.patterns.add_all(setup.task->banned_apis);
  spec.patterns.add_all(split_list(setup.option("banned-api", "extra", "")));
  spec.what = "a banned library API";
  spec.reason = setup.task ? "task " + setup.task->id + " is about implementing this computation, not calling a library for it"
                           : "kernels implement the computation instead of calling a library for it";
  spec.hint = "write the computation in the kernel yourself";
  return spec;
}

std::unique_ptr<Rule> create_banned_api(const RuleInfo& info, PassState& state) {
  return std::make_unique<NameRule>(info, state, banned_api_spec(state.setup));
}

}  // namespace kgb::lint::detail
