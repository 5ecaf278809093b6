// Factories of the rules; registry.cpp lists them with their catalog entries.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policy.h"
#include "rules/rule.h"

namespace kgb::lint::detail {

std::unique_ptr<Rule> create_entry_signature(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_banned_api(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_process_escape(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_mutable_global_state(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_timing_api(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_extra_concurrency(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_device_limits(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_launch_stream(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_precision_downgrade(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_include_allowlist(const RuleInfo& info, PassState& state);
std::unique_ptr<Rule> create_opencl_kernel_source(const RuleInfo& info, PassState& state);

}  // namespace kgb::lint::detail

