// The three request dialects read into one Query. Strict where the real APIs
// are strict (a missing `messages`, a malformed tool, Anthropic's required
// max_tokens), lenient about fields the oracle has no use for.
#include "kgb/oracle/query.h"

#include "kgb/oracle/prompt.h"

namespace kgb::oracle {
namespace {

using json = nlohmann::json;
using Role = QueryTurn::Role;

kgb::Error bad(std::string message) { return kgb::Error{"oracle.bad-request", std::move(message)}; }

std::string string_or_empty(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The text of a content value: a string, or the text parts of an array
// (OpenAI "text", Anthropic "text", Responses "input_text"/"output_text").
std::string content_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (!content.is_array()) return out;
  for (const auto& part : content) {
    if (part.is_string()) {
      out += (out.empty() ? "" : "\n") + part.get<std::string>();
      continue;
    }
    if (!part.is_object()) continue;
    const std::string type = string_or_empty(part, "type");
    if (type == "text" || type == "input_text" || type == "output_text")
      out += (out.empty() ? "" : "\n") + string_or_empty(part, "text");
  }
  return out;
}

// Arguments as JSON text: strings stay as written, objects are serialised.
std::string arguments_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "{}";
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

kgb::Result<int64_t> positive(const json& body, const char* key) {
  const json& v = body[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 1) return bad(std::string(key) + ": must be a positive integer");
  return v.get<int64_t>();
}

kgb::Status read_stop(const json& value, const char* key, std::vector<std::string>& out) {
  if (value.is_null()) return Ok{};
  if (value.is_string()) {
    out.push_back(value.get<std::string>());
    return Ok{};
  }
  if (!value.is_array()) return bad(std::string(key) + ": must be a string or a list of strings");
  for (const auto& s : value) {
    if (!s.is_string()) return bad(std::string(key) + ": must be a string or a list of strings");
    if (!s.get_ref<const std::string&>().empty()) out.push_back(s.get<std::string>());
  }
  return Ok{};
}

// "auto" | "none" | "required" | {"type": "function", ...}: the OpenAI forms.
kgb::Result<ToolDemand> openai_tool_choice(const json& value, bool responses) {
  ToolDemand d;
  if (value.is_null()) return d;
  if (value.is_string()) {
    const std::string mode = value.get<std::string>();
    if (mode == "auto") return d;
    if (mode == "none") d.mode = ToolDemand::Mode::None;
    else if (mode == "required") d.mode = ToolDemand::Mode::Required;
    else return bad("tool_choice: expected 'auto', 'none', 'required' or a function, got '" + mode + "'");
    return d;
  }
  if (value.is_object() && string_or_empty(value, "type") == "function") {
    d.mode = ToolDemand::Mode::Named;
    d.name = responses ? string_or_empty(value, "name") : "";
    if (d.name.empty() && value.contains("function") && value["function"].is_object())
      d.name = string_or_empty(value["function"], "name");
    if (!d.name.empty()) return d;
  }
  return bad("tool_choice: a function choice needs the function's name");
}

kgb::Status check_named_tool(const Query& q) {
  if (q.tool_choice.mode != ToolDemand::Mode::Named) return Ok{};
  for (const auto& t : q.tools)
    if (t.name == q.tool_choice.name) return Ok{};
  return bad("tool_choice names the function '" + q.tool_choice.name + "', which is not among the tools");
}

kgb::Result<Query> parse_openai_chat(const json& body) {
  Query q;
  q.dialect = Dialect::OpenAIChat;
  auto messages = body.find("messages");
  if (messages == body.end() || !messages->is_array()) return bad("messages: an array is required");
  if (messages->empty()) return bad("messages: at least one message is required");
  for (std::size_t i = 0; i < messages->size(); ++i) {
    const json& m = (*messages)[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) return bad(where + ": must be an object");
    const std::string role = string_or_empty(m, "role");
    const std::string text = m.contains("content") ? content_text(m["content"]) : std::string();
    if (role == "system" || role == "developer") {
      q.system += (q.system.empty() ? "" : "\n\n") + text;
    } else if (role == "user") {
      q.turns.push_back({Role::User, text, {}, {}});
    } else if (role == "assistant") {
      QueryTurn turn{Role::Assistant, text, {}, {}};
      if (auto calls = m.find("tool_calls"); calls != m.end() && calls->is_array())
        for (const auto& c : *calls) {
          if (!c.is_object() || !c.contains("function") || !c["function"].is_object())
            return bad(where + ".tool_calls: each call needs a function");
          const json& f = c["function"];
          turn.calls.push_back({string_or_empty(c, "id"), string_or_empty(f, "name"),
                                f.contains("arguments") ? arguments_text(f["arguments"]) : "{}"});
        }
      q.turns.push_back(std::move(turn));
    } else if (role == "tool" || role == "function") {
      QueryTurn turn{Role::Tool, text, {}, string_or_empty(m, role == "tool" ? "tool_call_id" : "name")};
      q.turns.push_back(std::move(turn));
    } else {
      return bad(where + ".role: unknown role '" + role + "'");
    }
  }
  if (auto tools = body.find("tools"); tools != body.end() && !tools->is_null()) {
    if (!tools->is_array()) return bad("tools: must be an array");
    for (const auto& t : *tools) {
      if (!t.is_object() || !t.contains("function") || !t["function"].is_object() ||
          string_or_empty(t["function"], "name").empty())
        return bad("tools: each tool needs a function with a name");
      const json& f = t["function"];
      q.tools.push_back({string_or_empty(f, "name"), string_or_empty(f, "description"),
                         f.contains("parameters") ? f["parameters"] : json::object()});
    }
  }
  if (body.contains("tool_choice")) {
    auto choice = openai_tool_choice(body["tool_choice"], false);
    if (!choice) return choice.error();
    q.tool_choice = *choice;
  }
  for (const char* key : {"max_completion_tokens", "max_tokens"})
    if (body.contains(key) && !body[key].is_null()) {
      auto cap = positive(body, key);
      if (!cap) return cap.error();
      q.max_tokens = *cap;
      break;
    }
  if (body.contains("n") && !body["n"].is_null()) {
    auto n = positive(body, "n");
    if (!n) return n.error();
    if (*n > 128) return bad("n: at most 128 choices");
    q.choices = static_cast<int>(*n);
  }
  if (body.contains("stop"))
    if (auto s = read_stop(body["stop"], "stop", q.stop); !s) return s.error();
  q.stream = body.value("stream", false);
  if (auto so = body.find("stream_options"); so != body.end() && so->is_object())
    q.include_usage = so->value("include_usage", false);
  q.user = string_or_empty(body, "user");
  return q;
}

kgb::Result<Query> parse_anthropic(const json& body) {
  Query q;
  q.dialect = Dialect::Anthropic;
  auto messages = body.find("messages");
  if (messages == body.end() || !messages->is_array()) return bad("messages: Field required");
  if (!body.contains("max_tokens")) return bad("max_tokens: Field required");
  auto cap = positive(body, "max_tokens");
  if (!cap) return cap.error();
  q.max_tokens = *cap;
  if (auto system = body.find("system"); system != body.end()) q.system = content_text(*system);
  for (std::size_t i = 0; i < messages->size(); ++i) {
    const json& m = (*messages)[i];
    const std::string where = "messages." + std::to_string(i);
    if (!m.is_object()) return bad(where + ": must be an object");
    const std::string role = string_or_empty(m, "role");
    if (role != "user" && role != "assistant") return bad(where + ".role: must be 'user' or 'assistant'");
    const json content = m.contains("content") ? m["content"] : json();
    if (role == "assistant") {
      QueryTurn turn{Role::Assistant, content_text(content), {}, {}};
      if (content.is_array())
        for (const auto& block : content)
          if (block.is_object() && string_or_empty(block, "type") == "tool_use")
            turn.calls.push_back({string_or_empty(block, "id"), string_or_empty(block, "name"),
                                  arguments_text(block.contains("input") ? block["input"] : json::object())});
      q.turns.push_back(std::move(turn));
      continue;
    }
    // A user message: tool results first (each its own turn), then its text.
    if (content.is_array())
      for (const auto& block : content)
        if (block.is_object() && string_or_empty(block, "type") == "tool_result")
          q.turns.push_back({Role::Tool, block.contains("content") ? content_text(block["content"]) : "", {},
                             string_or_empty(block, "tool_use_id")});
    const std::string text = content_text(content);
    if (!text.empty() || !content.is_array()) q.turns.push_back({Role::User, text, {}, {}});
  }
  if (auto tools = body.find("tools"); tools != body.end() && !tools->is_null()) {
    if (!tools->is_array()) return bad("tools: must be a list");
    for (const auto& t : *tools) {
      if (!t.is_object() || string_or_empty(t, "name").empty()) return bad("tools: each tool needs a name");
      if (t.contains("type") && string_or_empty(t, "type") != "custom") continue;  // server tools: not ours to run
      q.tools.push_back({string_or_empty(t, "name"), string_or_empty(t, "description"),
                         t.contains("input_schema") ? t["input_schema"] : json::object()});
    }
  }
  if (auto choice = body.find("tool_choice"); choice != body.end() && choice->is_object()) {
    const std::string type = string_or_empty(*choice, "type");
    if (type == "any") q.tool_choice.mode = ToolDemand::Mode::Required;
    else if (type == "none") q.tool_choice.mode = ToolDemand::Mode::None;
    else if (type == "tool") {
      q.tool_choice.mode = ToolDemand::Mode::Named;
      q.tool_choice.name = string_or_empty(*choice, "name");
    } else if (type != "auto") {
      return bad("tool_choice.type: expected 'auto', 'any', 'tool' or 'none'");
    }
  }
  if (body.contains("stop_sequences"))
    if (auto s = read_stop(body["stop_sequences"], "stop_sequences", q.stop); !s) return s.error();
  q.stream = body.value("stream", false);
  if (auto meta = body.find("metadata"); meta != body.end() && meta->is_object()) q.user = string_or_empty(*meta, "user_id");
  return q;
}

kgb::Result<Query> parse_responses(const json& body) {
  Query q;
  q.dialect = Dialect::OpenAIResponses;
  q.system = string_or_empty(body, "instructions");
  auto input = body.find("input");
  if (input == body.end() || input->is_null()) return bad("input: is required");
  if (input->is_string()) {
    q.turns.push_back({Role::User, input->get<std::string>(), {}, {}});
  } else if (input->is_array()) {
    for (std::size_t i = 0; i < input->size(); ++i) {
      const json& item = (*input)[i];
      if (!item.is_object()) return bad("input[" + std::to_string(i) + "]: must be an object");
      const std::string type = string_or_empty(item, "type");
      if (type == "function_call") {
        QueryCall call{string_or_empty(item, "call_id"), string_or_empty(item, "name"),
                       item.contains("arguments") ? arguments_text(item["arguments"]) : "{}"};
        if (q.turns.empty() || q.turns.back().role != Role::Assistant) q.turns.push_back({Role::Assistant, "", {}, {}});
        q.turns.back().calls.push_back(std::move(call));
      } else if (type == "function_call_output") {
        q.turns.push_back({Role::Tool, item.contains("output") ? content_text(item["output"]) : "", {},
                           string_or_empty(item, "call_id")});
      } else if (type.empty() || type == "message") {
        const std::string role = string_or_empty(item, "role");
        const std::string text = item.contains("content") ? content_text(item["content"]) : "";
        if (role == "system" || role == "developer") q.system += (q.system.empty() ? "" : "\n\n") + text;
        else if (role == "user") q.turns.push_back({Role::User, text, {}, {}});
        else if (role == "assistant") q.turns.push_back({Role::Assistant, text, {}, {}});
        else return bad("input[" + std::to_string(i) + "].role: unknown role '" + role + "'");
      }
      // reasoning and other item types carry nothing the oracle reads.
    }
  } else {
    return bad("input: must be a string or a list of items");
  }
  if (auto tools = body.find("tools"); tools != body.end() && !tools->is_null()) {
    if (!tools->is_array()) return bad("tools: must be an array");
    for (const auto& t : *tools) {
      if (!t.is_object()) return bad("tools: each tool must be an object");
      if (string_or_empty(t, "type") != "function") continue;  // built-in tools: not ours to run
      if (string_or_empty(t, "name").empty()) return bad("tools: a function tool needs a name");
      q.tools.push_back({string_or_empty(t, "name"), string_or_empty(t, "description"),
                         t.contains("parameters") && !t["parameters"].is_null() ? t["parameters"] : json::object()});
    }
  }
  if (body.contains("tool_choice")) {
    auto choice = openai_tool_choice(body["tool_choice"], true);
    if (!choice) return choice.error();
    q.tool_choice = *choice;
  }
  if (body.contains("max_output_tokens") && !body["max_output_tokens"].is_null()) {
    auto cap = positive(body, "max_output_tokens");
    if (!cap) return cap.error();
    q.max_tokens = *cap;
  }
  q.stream = body.value("stream", false);
  q.user = string_or_empty(body, "user");
  return q;
}

}  // namespace

kgb::Result<Query> parse_query(Dialect dialect, const json& body) {
  if (!body.is_object()) return bad("the request body must be a JSON object");
  if (body.contains("stream") && !body["stream"].is_boolean() && !body["stream"].is_null())
    return bad("stream: must be a boolean");
  kgb::Result<Query> q = dialect == Dialect::Anthropic         ? parse_anthropic(body)
                         : dialect == Dialect::OpenAIResponses ? parse_responses(body)
                                                               : parse_openai_chat(body);
  if (!q) return q;
  q->model = string_or_empty(body, "model");
  if (auto s = check_named_tool(*q); !s) return s.error();
  return q;
}

int64_t estimate_query_tokens(const Query& q) {
  int64_t total = 3 + estimate_tokens(q.system);
  for (const auto& turn : q.turns) {
    total += 4 + estimate_tokens(turn.text);
    for (const auto& call : turn.calls) total += 4 + estimate_tokens(call.name) + estimate_tokens(call.arguments);
  }
  for (const auto& tool : q.tools)
    total += estimate_tokens(tool.name) + estimate_tokens(tool.description) + estimate_tokens(tool.parameters.dump());
  return total;
}

}  // namespace kgb::oracle
