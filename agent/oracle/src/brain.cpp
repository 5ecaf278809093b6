// The oracle's decisions (see brain.h): which code, which tool, which fault,
// and where the output limits cut the answer. Nothing here remembers a
// request; only the transient HTTP failure draws count repeated bodies.
#include "kgb/oracle/brain.h"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <unordered_map>

#include "kgb/oracle/mutate.h"
#include "kgb/oracle/prompt.h"

namespace kgb::oracle {
namespace {

using json = nlohmann::json;

uint64_t fnv1a(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double unit(uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

// The agent's tools in the order a careful engineer uses them.
constexpr std::array<std::string_view, 5> kAgentTools = {"lint", "compile", "run", "profile", "submit"};

bool is_agent_tool(std::string_view name) {
  return std::find(kAgentTools.begin(), kAgentTools.end(), name) != kAgentTools.end();
}

std::string polite_reply(const PromptFacts& facts, const kgb::Error* error) {
  const std::string example = "for example the lines `Task: aten/softmax` and `Platform: cpu-x86_64`";
  if (facts.task_id.empty())
    return "I can write a kernel when your message names a task and a platform, " + example +
           ". I could not find a task in your message, so there is no code in this reply.";
  if (facts.platform.empty())
    return "Your message names the task `" + facts.task_id + "` but no platform. Add a line such as "
           "`Platform: cpu-x86_64` and I will answer with a kernel.";
  if (error && error->code == "oracle.unknown-task")
    return "I do not know a task called `" + facts.task_id + "`, so I cannot write a kernel for it. Task names look like "
           "`aten/softmax` (source/name).";
  if (error && error->code == "oracle.unknown-platform")
    return "I do not know the platform `" + facts.platform + "`. Platform names look like `cpu-x86_64`.";
  return "I have no kernel for `" + facts.task_id + "` on `" + facts.platform + "` yet, sorry.";
}

// The largest prefix of `text` of at most `bytes` bytes that does not split a
// UTF-8 sequence.
std::size_t utf8_prefix(std::string_view text, std::size_t bytes) {
  if (bytes >= text.size()) return text.size();
  while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
  return bytes;
}

// The value of the first line "outcome: <value>" of a tool result, or empty.
std::string outcome_line(std::string_view text) {
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '-')) line.remove_prefix(1);
    if (!line.starts_with("outcome:")) continue;
    line.remove_prefix(8);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    return std::string(line);
  }
  return {};
}

// Whether a tool result says the check passed. Without an outcome line the
// oracle trusts its own plan: a draft it broke fails where that fault shows.
bool tool_passed(std::string_view result, std::string_view tool, std::string_view planned_fault) {
  if (result.starts_with("error:")) return false;
  const std::string outcome = outcome_line(result);
  if (!outcome.empty())
    return outcome == "passed" || outcome == "clean" || outcome == "compiled" || outcome == "unavailable" || outcome == "ok";
  if (planned_fault == "compile_error") return false;
  if (planned_fault == "wrong_result") return tool == "lint" || tool == "compile";
  return true;
}

// Arguments for a function the oracle knows nothing about, from its schema:
// every required property gets a plausible value of its type.
json arguments_from_schema(const json& schema, const std::string& code, int depth = 0) {
  json args = json::object();
  if (!schema.is_object() || depth > 4) return args;
  const json properties = schema.contains("properties") && schema["properties"].is_object() ? schema["properties"] : json::object();
  if (!schema.contains("required") || !schema["required"].is_array()) return args;
  for (const auto& name_value : schema["required"]) {
    if (!name_value.is_string()) continue;
    const std::string name = name_value.get<std::string>();
    const json prop = properties.contains(name) ? properties[name] : json::object();
    const std::string type = prop.contains("type") && prop["type"].is_string() ? prop["type"].get<std::string>() : "string";
    if (prop.contains("enum") && prop["enum"].is_array() && !prop["enum"].empty()) args[name] = prop["enum"][0];
    else if (type == "integer" || type == "number") args[name] = prop.value("minimum", 1);
    else if (type == "boolean") args[name] = true;
    else if (type == "array") args[name] = json::array();
    else if (type == "object") args[name] = arguments_from_schema(prop, code, depth + 1);
    else if (!code.empty() && (name == "source" || name == "code" || name == "kernel")) args[name] = code;
    else args[name] = "oracle";
  }
  return args;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

struct OracleBrain::Impl {
  OracleOptions options;
  std::shared_ptr<const SolutionCatalog> catalog;
  std::mutex mutex;
  std::unordered_map<uint64_t, uint64_t> seen;  // body hash -> times seen (HTTP failure draws only)

  // The code of attempt (or draft) `attempt`, with its planned fault.
  std::string code_for(const KernelTarget& target, int attempt, Reply& r) const {
    r.attempt = attempt;
    std::string code = target.source;
    if (attempt <= options.compile_error_attempts) {
      code = inject_compile_error(code, target.entry).source;
      r.fault = "compile_error";
    } else if (attempt <= options.compile_error_attempts + options.wrong_result_attempts) {
      auto wrong = inject_wrong_result(target);
      if (wrong) {
        code = std::move(wrong->source);
        r.fault = "wrong_result";
      } else {
        code = inject_compile_error(code, target.entry).source;
        r.fault = "compile_error";
        r.note = "wrong result unavailable (" + wrong.error().message + "); compile error instead";
      }
    }
    if (!code.empty() && code.back() != '\n') code += '\n';
    return code;
  }

  std::string fenced(const KernelTarget& target, const std::string& code) const {
    return "Here is an implementation of `" + target.task_id + "` for the " + target.platform +
           " platform. It implements the entry point `" + target.entry +
           "` as specified, for every dtype and layout the task lists.\n\n```" + target.fence_language + "\n" + code +
           "```\n";
  }

  std::string reasoning_for(const KernelTarget& target) const {
    if (!options.reasoning) return {};
    return "The prompt asks for " + target.task_id + " on " + target.platform + " (" + target.backend +
           " backend). I will write the whole kernel around the entry point " + target.entry +
           ", following the strides of each tensor view.";
  }

  static std::string call_id(const Query& q, std::size_t index) {
    int turns = 0;
    for (const auto& t : q.turns) turns += t.role == QueryTurn::Role::Assistant;
    return std::string(q.dialect == Dialect::Anthropic ? "toolu_" : "call_") + "oracle_" + std::to_string(turns) + "_" +
           std::to_string(index);
  }

  void agent_step(const Query& q, const KernelTarget& target, const std::string& forced, Reply& r) const {
    std::vector<std::string_view> pipeline;
    for (std::string_view tool : kAgentTools)
      for (const auto& offered : q.tools)
        if (offered.name == tool) pipeline.push_back(tool);
    if (!forced.empty() && std::find(pipeline.begin(), pipeline.end(), forced) == pipeline.end()) pipeline.push_back(forced);

    // Replay the conversation: which tool ran last, whether it passed, and
    // how many drafts failed so far (each failure made a new draft).
    std::map<std::string, const QueryTurn*> results;
    for (const auto& t : q.turns)
      if (t.role == QueryTurn::Role::Tool) results[t.call_id] = &t;
    int failures = 0;
    std::string last_tool;
    bool last_passed = true;
    for (const auto& t : q.turns) {
      if (t.role != QueryTurn::Role::Assistant) continue;
      for (const auto& call : t.calls) {
        auto result = results.find(call.id);
        if (!is_agent_tool(call.name) || result == results.end()) continue;  // never ran
        Reply planned;
        code_for(target, failures + 1, planned);
        last_tool = call.name;
        last_passed = tool_passed(result->second->text, call.name, planned.fault);
        if (!last_passed) ++failures;
      }
    }
    const int draft = failures + 1;
    const std::string code = code_for(target, draft, r);
    r.reasoning = reasoning_for(target);

    std::string tool;
    if (!forced.empty()) {
      tool = forced;
    } else if (last_tool.empty()) {
      tool = std::string(pipeline.front());
    } else if (!last_passed) {
      tool = std::find(pipeline.begin(), pipeline.end(), last_tool) != pipeline.end() ? last_tool : std::string(pipeline.front());
    } else if (last_tool != "submit") {
      const auto order = [](std::string_view name) { return std::find(kAgentTools.begin(), kAgentTools.end(), name) - kAgentTools.begin(); };
      for (std::string_view candidate : pipeline)
        if (order(candidate) > order(last_tool)) {
          tool = std::string(candidate);
          break;
        }
    }
    if (tool.empty()) {
      if (last_tool == "submit") {
        r.text = "The kernel for `" + target.task_id + "` passed every check and is submitted.";
        r.action = "done";
      } else {
        r.text = fenced(target, code);  // checked, and there is no submit tool: the final answer
        r.action = "code";
      }
      return;
    }
    r.text = "Draft " + std::to_string(draft) + " of `" + target.entry + "`: checking it with `" + tool + "`.";
    r.calls.push_back({call_id(q, 0), tool, dump(json{{"source", code}}), true});
    r.action = "tool:" + tool;
  }

  void generic_call(const Query& q, const QueryTool& tool, const std::string& code, Reply& r) const {
    r.calls.push_back({call_id(q, 0), tool.name, dump(arguments_from_schema(tool.parameters, code)), true});
    r.action = "tool-call";
  }

  // Stop sequences end the text; max_tokens cuts what is left.
  void apply_limits(const Query& q, Reply& r) const {
    std::size_t first = std::string::npos;
    for (const auto& stop : q.stop) {
      const std::size_t at = stop.empty() ? std::string::npos : r.text.find(stop);
      if (at < first) {
        first = at;
        r.stop_sequence = stop;
      }
    }
    if (first != std::string::npos) {
      r.text.resize(first);
      r.calls.clear();
      r.finish = Reply::Finish::StopSequence;
    }
    std::size_t used = 0;
    if (q.max_tokens) {
      const std::size_t budget = static_cast<std::size_t>(*q.max_tokens) * 4;
      bool cut = false;
      auto take = [&](std::string& piece) {
        if (cut) {
          piece.clear();
          return;
        }
        if (used + piece.size() > budget) {
          piece.resize(utf8_prefix(piece, budget - used));
          cut = true;
        }
        used += piece.size();
      };
      take(r.reasoning);
      take(r.text);
      std::vector<ReplyCall> kept;
      for (auto& call : r.calls) {
        if (cut) break;
        const std::size_t before = call.arguments.size();
        if (used == budget && before > 0) {
          cut = true;
          break;
        }
        take(call.arguments);
        call.complete = call.arguments.size() == before;
        kept.push_back(std::move(call));
      }
      r.calls = std::move(kept);
      if (cut) r.finish = Reply::Finish::Length;
    }
    if (r.finish == Reply::Finish::Stop && !r.calls.empty()) r.finish = Reply::Finish::ToolCalls;
    r.reasoning_tokens = estimate_tokens(r.reasoning);
    r.completion_tokens = r.reasoning_tokens + estimate_tokens(r.text);
    for (const auto& call : r.calls) r.completion_tokens += estimate_tokens(call.arguments);
    if (q.max_tokens) r.completion_tokens = std::min(r.completion_tokens, *q.max_tokens);
  }
};

OracleBrain::OracleBrain(OracleOptions options, std::shared_ptr<const SolutionCatalog> catalog)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->catalog = std::move(catalog);
}

OracleBrain::~OracleBrain() = default;

const OracleOptions& OracleBrain::options() const { return impl_->options; }

OracleBrain::Draw OracleBrain::draw(std::string_view request_body, bool stream) {
  const uint64_t h = fnv1a(request_body);
  uint64_t occurrence;
  {
    std::lock_guard lock(impl_->mutex);
    occurrence = impl_->seen[h]++;
  }
  const FaultRates& r = impl_->options.faults;
  const uint64_t x = splitmix(impl_->options.seed ^ h ^ splitmix(occurrence));
  const double u = unit(x);
  Draw d;
  double edge = r.http_429;
  if (u < edge) d.fault = HttpFault::TooManyRequests;
  else if (u < (edge += r.http_500)) d.fault = HttpFault::ServerError;
  else if (u < (edge += r.mid_stream)) d.fault = stream ? HttpFault::MidStream : HttpFault::None;
  else if (u < (edge += r.truncate)) d.fault = HttpFault::Truncate;
  const auto lo = impl_->options.latency_min, hi = std::max(impl_->options.latency_min, impl_->options.latency_max);
  d.latency = lo + std::chrono::milliseconds(static_cast<int64_t>(unit(splitmix(x)) * static_cast<double>((hi - lo).count() + 1)));
  if (d.latency > hi) d.latency = hi;
  return d;
}

Reply OracleBrain::reply(const Query& q) const {
  const Impl& I = *impl_;
  Reply r;
  r.prompt_tokens = estimate_query_tokens(q);
  PromptFacts facts;
  int assistant_turns = 0, omitted = 0;
  for (const auto& turn : q.turns) {
    if (turn.role == QueryTurn::Role::User) {
      scan_prompt(turn.text, facts);
      omitted = std::max(omitted, omitted_attempts(turn.text));
    }
    assistant_turns += turn.role == QueryTurn::Role::Assistant;
  }
  r.task_id = facts.task_id;
  r.platform = facts.platform;
  std::optional<KernelTarget> target;
  std::optional<kgb::Error> unknown;
  if (!facts.task_id.empty() && !facts.platform.empty()) {
    auto found = I.catalog->find(facts.task_id, facts.platform);
    if (found) target = std::move(found.value());
    else unknown = found.error();
  }
  r.known = target.has_value();

  const bool tools_usable = !q.tools.empty() && q.tool_choice.mode != ToolDemand::Mode::None;
  const bool agent_tools_offered =
      std::any_of(q.tools.begin(), q.tools.end(), [](const QueryTool& t) { return is_agent_tool(t.name); });
  const QueryTool* named = nullptr;
  for (const auto& t : q.tools)
    if (q.tool_choice.mode == ToolDemand::Mode::Named && t.name == q.tool_choice.name) named = &t;

  if (tools_usable && target && (agent_tools_offered || (named && is_agent_tool(named->name)))) {
    if (!named || is_agent_tool(named->name)) {
      I.agent_step(q, *target, named ? named->name : std::string(), r);
      I.apply_limits(q, r);
      return r;
    }
  }
  if (tools_usable && (named || q.tool_choice.mode == ToolDemand::Mode::Required)) {
    std::string code;
    if (target) {
      Reply planned;
      code = I.code_for(*target, 1 + assistant_turns + omitted, planned);
    }
    I.generic_call(q, named ? *named : q.tools.front(), code, r);
    I.apply_limits(q, r);
    return r;
  }
  if (target) {
    const std::string code = I.code_for(*target, 1 + assistant_turns + omitted, r);
    r.text = I.fenced(*target, code);
    r.reasoning = I.reasoning_for(*target);
    r.action = "code";
  } else if (!q.turns.empty() && q.turns.back().role == QueryTurn::Role::Tool) {
    const std::string& result = q.turns.back().text;
    r.text = "The tool returned: " + result.substr(0, utf8_prefix(result, 2000));
    r.action = "text";
  } else {
    r.text = polite_reply(facts, unknown ? &*unknown : nullptr);
    r.action = "text";
  }
  I.apply_limits(q, r);
  return r;
}

}  // namespace kgb::oracle
