// The tools the server offers, with their JSON schemas, and the check of a
// call's arguments against them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgb::mcp {

struct ToolDef {
  std::string name, title, description;
  nlohmann::json input_schema, output_schema;
  bool read_only = false;   // browses, changes nothing
  bool kernel = false;      // takes a kernel source and needs an open attempt
  bool evaluation = false;  // runs the kernel: counts against the evaluations budget
};

// Every tool, in the order tools/list shows them; `profile` only where the
// platform has a profiler.
std::vector<ToolDef> tool_defs(bool with_profile);
const ToolDef* find_tool_def(const std::vector<ToolDef>& defs, std::string_view name);
nlohmann::json tool_json(const ToolDef& def);

// The largest kernel source a tool takes (what lint parses at most).
inline constexpr size_t kMaxSourceBytes = 1u << 20;

// Checks arguments against the subset of JSON Schema the tool schemas use
// (object properties of type string, integer, number, boolean or object;
// required; additionalProperties false; minimum). nullopt when they fit,
// else a sentence saying what is wrong, for the model to fix its call.
std::optional<std::string> check_arguments(const nlohmann::json& schema, const nlohmann::json& arguments);

}  // namespace kgb::mcp
