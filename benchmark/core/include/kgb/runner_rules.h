// Integrity rules a runner detects itself, from its device's view of what a
// call did (the OpenCL interposers: a host write into a harness buffer, a
// command on another queue). The runner's error text is "<rule>: <why>"; the
// evaluator turns it into that rule's reject finding instead of a device error.
#pragma once

#include <string_view>

namespace kgb::wire {

inline constexpr std::string_view kRuleHostDeviceAccess = "host-device-access";
inline constexpr std::string_view kRuleForeignQueue = "foreign-queue";
inline constexpr std::string_view kRunnerRules[] = {kRuleHostDeviceAccess, kRuleForeignQueue};

// The rule a runner error names, or empty.
inline std::string_view runner_error_rule(std::string_view error) {
  for (std::string_view rule : kRunnerRules)
    if (error.size() > rule.size() + 1 && error.substr(0, rule.size()) == rule && error.substr(rule.size(), 2) == ": ")
      return rule;
  return {};
}

}  // namespace kgb::wire
