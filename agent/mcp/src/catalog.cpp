#include "catalog.h"

#include <cmath>

namespace kgb::mcp {

using json = nlohmann::json;

namespace {

json source_property() {
  return {{"type", "string"}, {"description", "the complete source file of the kernel"}};
}

json object_schema(json properties, json required) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)},
          {"additionalProperties", false}};
}

// What every tool working on an attempt returns about it.
json attempt_schema() {
  return {{"type", "object"},
          {"description", "the attempt: task, budgets used and left, best kernel so far, whether it has ended"}};
}

json kernel_result_schema() {
  return {{"type", "object"},
          {"properties",
           {{"tool", {{"type", "string"}}},
            {"outcome", {{"type", "string"}, {"description", "clean, rejected, compiled, compile-error, passed, wrong-result, ..."}}},
            {"ok", {{"type", "boolean"}}},
            {"correct", {{"type", "boolean"}, {"description", "every correctness case and anti-cheating check passed"}}},
            {"stage", {{"type", "string"}}},
            {"summary", {{"type", "string"}}},
            {"speedup", {{"type", "number"}, {"description", "baseline median / kernel median, geometric mean over cases; 0 when not timed"}}},
            {"result", {{"type", "object"}, {"description", "diagnostics, findings, failed cases and timings, capped"}}},
            {"verdict", {{"type", "object"}, {"description", "the full verdict, as `kgb eval --json` prints it"}}},
            {"attempt", attempt_schema()}}},
          {"required", {"tool", "outcome", "ok", "correct", "summary", "attempt"}}};
}

}  // namespace

std::vector<ToolDef> tool_defs(bool with_profile) {
  std::vector<ToolDef> defs;
  defs.push_back({"list_tasks", "List tasks",
                  "List the benchmark tasks this server offers: id, one-line summary, entry point, dtypes.",
                  object_schema({{"source", {{"type", "string"}, {"description", "only tasks of this source (aten, blas, vllm, ...)"}}},
                                 {"glob", {{"type", "string"}, {"description", "only task ids matching this glob, e.g. \"aten/*\""}}}},
                                json::array()),
                  {{"type", "object"},
                   {"properties", {{"tasks", {{"type", "array"}, {"items", {{"type", "object"}}}}}}},
                   {"required", {"tasks"}}},
                  true});
  defs.push_back({"show_task", "Show a task",
                  "The full statement of a task for this server's platform, exactly as `kgb show` prints it: description, "
                  "entry point declaration, parameters, correctness and performance cases, tolerance and constraints.",
                  object_schema({{"task", {{"type", "string"}, {"description", "task id, e.g. \"blas/saxpy\"; default: the attempt's task"}}}},
                                json::array()),
                  {{"type", "object"},
                   {"properties", {{"task", {{"type", "string"}}}, {"platform", {{"type", "string"}}}, {"statement", {{"type", "string"}}}}},
                   {"required", {"task", "platform", "statement"}}},
                  true});
  defs.push_back({"start_attempt", "Start an attempt",
                  "Open an attempt on a task (one at a time per session). Every kernel tool call is recorded with it and "
                  "counts against its budgets; submit ends it.",
                  object_schema({{"task", {{"type", "string"}, {"description", "task id, e.g. \"blas/saxpy\""}}}}, {"task"}),
                  {{"type", "object"}, {"properties", {{"attempt", attempt_schema()}}}, {"required", {"attempt"}}}});
  defs.push_back({"lint", "Lint a kernel",
                  "Static checks of a complete kernel source: parse errors, the entry point signature and the "
                  "anti-cheating rules. Does not compile or run it.",
                  object_schema({{"source", source_property()}}, {"source"}), kernel_result_schema(), false, true});
  defs.push_back({"compile", "Compile a kernel",
                  "Compile and link a complete kernel source with the platform's toolchain. Returns the compiler "
                  "diagnostics only; nothing runs.",
                  object_schema({{"source", source_property()}}, {"source"}), kernel_result_schema(), false, true});
  defs.push_back({"evaluate", "Evaluate a kernel",
                  "Lint, compile and check the kernel on every correctness case in an isolated process (for a failing "
                  "case: max abs/rel error and the first mismatch with expected and got); then, unless correctness_only, "
                  "time it against the platform's baseline (median per performance case, speedup, fraction of the "
                  "roofline). Counts as one evaluation.",
                  object_schema({{"source", source_property()},
                                 {"correctness_only", {{"type", "boolean"}, {"description", "check correctness only, no timing (faster)"}}}},
                                {"source"}),
                  kernel_result_schema(), false, true, true});
  if (with_profile)
    defs.push_back({"profile", "Profile a kernel",
                    "Run the kernel on one case under the platform's profiler (CUDA: Nsight Compute): per kernel launch "
                    "the duration, DRAM and SM throughput, achieved occupancy and the largest stall reasons. Counts as "
                    "one evaluation.",
                    object_schema({{"source", source_property()},
                                   {"case", {{"type", "string"}, {"description", "case name glob; default: the first performance case"}}}},
                                  {"source"}),
                    {{"type", "object"},
                     {"properties", {{"tool", {{"type", "string"}}}, {"outcome", {{"type", "string"}}}, {"ok", {{"type", "boolean"}}},
                                     {"summary", {{"type", "string"}}}, {"profile", {{"type", "object"}}}, {"attempt", attempt_schema()}}},
                     {"required", {"tool", "outcome", "ok", "summary", "attempt"}}},
                    false, true, true});
  defs.push_back({"submit", "Submit the final kernel",
                  "Submit the final kernel of this attempt. It is evaluated like evaluate (timed where the platform can "
                  "time); its verdict is the attempt's result, and the attempt ends. Counts as one evaluation.",
                  object_schema({{"source", source_property()}}, {"source"}), kernel_result_schema(), false, true, true});
  defs.push_back({"report_usage", "Report token usage",
                  "Attach token usage that your own harness measured to this attempt (token counts and dollars, or a "
                  "usage object as your API returned it). Recorded as reported by the agent; token and dollar budgets "
                  "count it.",
                  object_schema({{"input_tokens", {{"type", "integer"}, {"minimum", 0}, {"description", "prompt tokens, cached ones included"}}},
                                 {"output_tokens",
                                  {{"type", "integer"}, {"minimum", 0}, {"description", "generated tokens, reasoning included"}}},
                                 {"cached_input_tokens", {{"type", "integer"}, {"minimum", 0}}},
                                 {"cache_write_tokens", {{"type", "integer"}, {"minimum", 0}}},
                                 {"reasoning_tokens", {{"type", "integer"}, {"minimum", 0}}},
                                 {"cost_usd", {{"type", "number"}, {"minimum", 0}}},
                                 {"model", {{"type", "string"}}},
                                 {"usage",
                                  {{"type", "object"},
                                   {"description", "a usage object in the OpenAI or Anthropic shape, instead of the counts"}}}},
                                json::array()),
                  {{"type", "object"},
                   {"properties", {{"recorded", {{"type", "object"}}}, {"attempt", attempt_schema()}}},
                   {"required", {"recorded", "attempt"}}}});
  defs.push_back({"attempt_status", "Attempt status",
                  "This session's attempt: task, budgets used and left, kernels tried, evaluations, best kernel so far.",
                  object_schema(json::object(), json::array()),
                  {{"type", "object"}, {"properties", {{"attempt", attempt_schema()}}}, {"required", {"attempt"}}}, true});
  return defs;
}

const ToolDef* find_tool_def(const std::vector<ToolDef>& defs, std::string_view name) {
  for (const auto& d : defs)
    if (d.name == name) return &d;
  return nullptr;
}

json tool_json(const ToolDef& d) {
  json annotations = {{"title", d.title}, {"readOnlyHint", d.read_only}, {"openWorldHint", false}};
  if (!d.read_only) annotations["destructiveHint"] = false;
  return {{"name", d.name},
          {"title", d.title},
          {"description", d.description},
          {"inputSchema", d.input_schema},
          {"outputSchema", d.output_schema},
          {"annotations", annotations}};
}

std::optional<std::string> check_arguments(const json& schema, const json& args) {
  if (!args.is_object()) return "the arguments must be a JSON object";
  const json& properties = schema.contains("properties") ? schema["properties"] : json::object();
  std::string names;
  for (const auto& [name, _] : properties.items()) names += (names.empty() ? "" : ", ") + name;
  if (schema.value("additionalProperties", true) == false)
    for (const auto& [name, _] : args.items())
      if (!properties.contains(name))
        return "unknown argument '" + name + "' (" + (names.empty() ? "this tool takes none" : "arguments: " + names) + ")";
  if (schema.contains("required"))
    for (const auto& r : schema["required"])
      if (!args.contains(r.get<std::string>())) return "the argument '" + r.get<std::string>() + "' is required";
  for (const auto& [name, value] : args.items()) {
    if (!properties.contains(name)) continue;
    const json& p = properties[name];
    const std::string type = p.value("type", "");
    const bool fits = type == "string"    ? value.is_string()
                      : type == "integer" ? value.is_number_integer() ||
                                                (value.is_number_float() && std::floor(value.get<double>()) == value.get<double>())
                      : type == "number"  ? value.is_number()
                      : type == "boolean" ? value.is_boolean()
                      : type == "object"  ? value.is_object()
                      : type == "array"   ? value.is_array()
                                          : true;
    if (!fits) return "the argument '" + name + "' must be " + (type == "integer" || type == "object" || type == "array" ? "an " : "a ") + type;
    if (p.contains("minimum") && value.is_number() && value.get<double>() < p["minimum"].get<double>())
      return "the argument '" + name + "' must be at least " + p["minimum"].dump();
  }
  return std::nullopt;
}

}  // namespace kgb::mcp
