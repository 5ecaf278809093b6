// The three dialects on the wire. Field names and event orders follow what the
// official SDKs parse: chat.completion(.chunk) objects, Anthropic message
// events (message_start ... message_stop), Responses events with sequence
// numbers (response.created ... response.completed).
#include "render.h"

#include <algorithm>

namespace kgb::oracle::render {
namespace {

// Pieces of at most `size` bytes, never splitting a UTF-8 sequence.
std::vector<std::string_view> pieces(std::string_view text, std::size_t size) {
  std::vector<std::string_view> out;
  size = std::max<std::size_t>(size, 4);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = std::min(text.size(), pos + size);
    while (end < text.size() && end > pos + 1 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    out.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

std::string sse(const json& data, const std::string& event = {}) {
  std::string out;
  if (!event.empty()) out += "event: " + event + "\n";
  out += "data: " + dump(data) + "\n\n";
  return out;
}

const char* openai_finish(Reply::Finish f) {
  switch (f) {
    case Reply::Finish::Length: return "length";
    case Reply::Finish::ToolCalls: return "tool_calls";
    default: return "stop";
  }
}

const char* anthropic_stop(Reply::Finish f) {
  switch (f) {
    case Reply::Finish::Length: return "max_tokens";
    case Reply::Finish::ToolCalls: return "tool_use";
    case Reply::Finish::StopSequence: return "stop_sequence";
    default: return "end_turn";
  }
}

// Anthropic and Responses carry a call's input as an object: a call cut short
// has none yet.
json call_input(const ReplyCall& call) {
  if (!call.complete) return json::object();
  json input = json::parse(call.arguments, nullptr, false);
  return input.is_object() ? input : json::object();
}

// ---------------------------------------------------------------- OpenAI chat

json chat_usage(const Reply& r, int choices) {
  const int64_t completion = r.completion_tokens * choices;
  return {{"prompt_tokens", r.prompt_tokens},
          {"completion_tokens", completion},
          {"total_tokens", r.prompt_tokens + completion},
          {"prompt_tokens_details", {{"cached_tokens", 0}}},
          {"completion_tokens_details", {{"reasoning_tokens", r.reasoning_tokens * choices}}},
          {"estimated", true}};
}

json chat_body(const Query& q, const Reply& r, const Envelope& e) {
  json choices = json::array();
  for (int i = 0; i < q.choices; ++i) {
    json message = {{"role", "assistant"}, {"content", r.text.empty() && !r.calls.empty() ? json(nullptr) : json(r.text)}};
    if (!r.reasoning.empty()) message["reasoning_content"] = r.reasoning;
    if (!r.calls.empty()) {
      json calls = json::array();
      for (const auto& c : r.calls)
        calls.push_back({{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
      message["tool_calls"] = std::move(calls);
    }
    message["refusal"] = nullptr;
    choices.push_back({{"index", i}, {"message", std::move(message)}, {"logprobs", nullptr}, {"finish_reason", openai_finish(r.finish)}});
  }
  return {{"id", "chatcmpl-" + e.request_id}, {"object", "chat.completion"}, {"created", e.created},
          {"model", e.model},                 {"choices", std::move(choices)}, {"usage", chat_usage(r, q.choices)},
          {"system_fingerprint", "kgb-oracle"}, {"kgb_oracle", e.oracle_meta}};
}

Events chat_events(const Query& q, const Reply& r, const Envelope& e) {
  Events out;
  const std::string id = "chatcmpl-" + e.request_id;
  auto chunk = [&](int index, json delta, json finish = nullptr) {
    return sse({{"id", id},
                {"object", "chat.completion.chunk"},
                {"created", e.created},
                {"model", e.model},
                {"system_fingerprint", "kgb-oracle"},
                {"choices", json::array({{{"index", index}, {"delta", std::move(delta)}, {"logprobs", nullptr},
                                          {"finish_reason", std::move(finish)}}})}});
  };
  for (int i = 0; i < q.choices; ++i) {
    out.events.push_back(chunk(i, {{"role", "assistant"}, {"content", ""}}));
    for (auto p : pieces(r.reasoning, e.chunk_chars)) out.events.push_back(chunk(i, {{"reasoning_content", p}}));
    const auto text = pieces(r.text, e.chunk_chars);
    if (i == 0) out.cut_at = out.events.size() + text.size() / 2;
    for (auto p : text) out.events.push_back(chunk(i, {{"content", p}}));
    for (std::size_t k = 0; k < r.calls.size(); ++k) {
      const ReplyCall& c = r.calls[k];
      json head = {{"index", k}, {"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", ""}}}};
      out.events.push_back(chunk(i, {{"tool_calls", json::array({head})}}));
      const auto args = pieces(c.arguments, e.chunk_chars);
      if (i == 0 && text.empty() && k == 0) out.cut_at = out.events.size() + args.size() / 2;
      for (auto p : args)
        out.events.push_back(chunk(i, {{"tool_calls", json::array({{{"index", k}, {"function", {{"arguments", p}}}}})}}));
    }
    out.events.push_back(chunk(i, json::object(), openai_finish(r.finish)));
  }
  if (q.include_usage)
    out.events.push_back(sse({{"id", id},
                              {"object", "chat.completion.chunk"},
                              {"created", e.created},
                              {"model", e.model},
                              {"choices", json::array()},
                              {"usage", chat_usage(r, q.choices)},
                              {"kgb_oracle", e.oracle_meta}}));
  out.events.push_back("data: [DONE]\n\n");
  return out;
}

// ------------------------------------------------------------------ Anthropic

json anthropic_usage(const Reply& r, int64_t output) {
  return {{"input_tokens", r.prompt_tokens},
          {"output_tokens", output},
          {"cache_creation_input_tokens", 0},
          {"cache_read_input_tokens", 0},
          {"estimated", true}};
}

json anthropic_body(const Reply& r, const Envelope& e) {
  json content = json::array();
  if (!r.reasoning.empty()) content.push_back({{"type", "thinking"}, {"thinking", r.reasoning}, {"signature", "oracle-signature"}});
  if (!r.text.empty() || r.calls.empty()) content.push_back({{"type", "text"}, {"text", r.text}});
  for (const auto& c : r.calls) content.push_back({{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", call_input(c)}});
  return {{"id", "msg_" + e.request_id},
          {"type", "message"},
          {"role", "assistant"},
          {"model", e.model},
          {"content", std::move(content)},
          {"stop_reason", anthropic_stop(r.finish)},
          {"stop_sequence", r.finish == Reply::Finish::StopSequence ? json(r.stop_sequence) : json(nullptr)},
          {"usage", anthropic_usage(r, r.completion_tokens)},
          {"kgb_oracle", e.oracle_meta}};
}

Events anthropic_events(const Reply& r, const Envelope& e) {
  Events out;
  json start = {{"id", "msg_" + e.request_id}, {"type", "message"},        {"role", "assistant"},
                {"model", e.model},            {"content", json::array()}, {"stop_reason", nullptr},
                {"stop_sequence", nullptr},    {"usage", anthropic_usage(r, 1)}};
  out.events.push_back(sse({{"type", "message_start"}, {"message", std::move(start)}}, "message_start"));
  out.events.push_back(sse({{"type", "ping"}}, "ping"));
  int index = 0;
  auto block = [&](json head, const std::vector<json>& deltas) {
    out.events.push_back(sse({{"type", "content_block_start"}, {"index", index}, {"content_block", std::move(head)}}, "content_block_start"));
    for (const auto& d : deltas)
      out.events.push_back(sse({{"type", "content_block_delta"}, {"index", index}, {"delta", d}}, "content_block_delta"));
    out.events.push_back(sse({{"type", "content_block_stop"}, {"index", index}}, "content_block_stop"));
    ++index;
  };
  if (!r.reasoning.empty()) {
    std::vector<json> deltas;
    for (auto p : pieces(r.reasoning, e.chunk_chars)) deltas.push_back({{"type", "thinking_delta"}, {"thinking", p}});
    deltas.push_back({{"type", "signature_delta"}, {"signature", "oracle-signature"}});
    block({{"type", "thinking"}, {"thinking", ""}}, deltas);
  }
  if (!r.text.empty() || r.calls.empty()) {
    std::vector<json> deltas;
    for (auto p : pieces(r.text, e.chunk_chars)) deltas.push_back({{"type", "text_delta"}, {"text", p}});
    out.cut_at = out.events.size() + 1 + deltas.size() / 2;
    block({{"type", "text"}, {"text", ""}}, deltas);
  }
  for (std::size_t k = 0; k < r.calls.size(); ++k) {
    const ReplyCall& c = r.calls[k];
    std::vector<json> deltas;
    for (auto p : pieces(c.arguments, e.chunk_chars)) deltas.push_back({{"type", "input_json_delta"}, {"partial_json", p}});
    if (k == 0 && r.text.empty()) out.cut_at = out.events.size() + 1 + deltas.size() / 2;
    block({{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", json::object()}}, deltas);
  }
  out.events.push_back(sse({{"type", "message_delta"},
                            {"delta", {{"stop_reason", anthropic_stop(r.finish)},
                                       {"stop_sequence", r.finish == Reply::Finish::StopSequence ? json(r.stop_sequence) : json(nullptr)}}},
                            {"usage", {{"output_tokens", r.completion_tokens}, {"estimated", true}}}},
                           "message_delta"));
  out.events.push_back(sse({{"type", "message_stop"}}, "message_stop"));
  return out;
}

// ------------------------------------------------------------- OpenAI Responses

struct ResponseItems {
  json reasoning, message, calls = json::array();
};

ResponseItems response_items(const Reply& r, const Envelope& e) {
  ResponseItems items;
  const bool cut = r.finish == Reply::Finish::Length;
  if (!r.reasoning.empty())
    items.reasoning = {{"type", "reasoning"},
                       {"id", "rs_" + e.request_id},
                       {"summary", json::array({{{"type", "summary_text"}, {"text", r.reasoning}}})}};
  if (!r.text.empty() || r.calls.empty())
    items.message = {{"type", "message"},
                     {"id", "msg_" + e.request_id},
                     {"status", cut && r.calls.empty() ? "incomplete" : "completed"},
                     {"role", "assistant"},
                     {"content", json::array({{{"type", "output_text"}, {"text", r.text}, {"annotations", json::array()}}})}};
  for (const auto& c : r.calls)
    items.calls.push_back({{"type", "function_call"},
                           {"id", "fc_" + c.id},
                           {"call_id", c.id},
                           {"name", c.name},
                           {"arguments", c.arguments},
                           {"status", c.complete ? "completed" : "incomplete"}});
  return items;
}

json response_object(const Query& q, const Reply& r, const Envelope& e, const std::string& status, json output) {
  json usage = {{"input_tokens", r.prompt_tokens},
                {"input_tokens_details", {{"cached_tokens", 0}}},
                {"output_tokens", r.completion_tokens},
                {"output_tokens_details", {{"reasoning_tokens", r.reasoning_tokens}}},
                {"total_tokens", r.prompt_tokens + r.completion_tokens},
                {"estimated", true}};
  const bool done = status != "in_progress";
  return {{"id", "resp_" + e.request_id},
          {"object", "response"},
          {"created_at", e.created},
          {"status", status},
          {"error", nullptr},
          {"incomplete_details", status == "incomplete" ? json{{"reason", "max_output_tokens"}} : json(nullptr)},
          {"instructions", q.system.empty() ? json(nullptr) : json(q.system)},
          {"max_output_tokens", q.max_tokens ? json(*q.max_tokens) : json(nullptr)},
          {"model", e.model},
          {"output", std::move(output)},
          {"parallel_tool_calls", true},
          {"temperature", 1.0},
          {"tool_choice", "auto"},
          {"tools", json::array()},
          {"top_p", 1.0},
          {"usage", done ? usage : json(nullptr)},
          {"kgb_oracle", e.oracle_meta}};
}

std::string response_status(const Reply& r) { return r.finish == Reply::Finish::Length ? "incomplete" : "completed"; }

json responses_body(const Query& q, const Reply& r, const Envelope& e) {
  ResponseItems items = response_items(r, e);
  json output = json::array();
  if (!items.reasoning.is_null()) output.push_back(items.reasoning);
  if (!items.message.is_null()) output.push_back(items.message);
  for (auto& c : items.calls) output.push_back(c);
  return response_object(q, r, e, response_status(r), std::move(output));
}

Events responses_events(const Query& q, const Reply& r, const Envelope& e) {
  Events out;
  int sequence = 0;
  auto event = [&](const std::string& type, json data) {
    data["type"] = type;
    data["sequence_number"] = sequence++;
    out.events.push_back(sse(data, type));
  };
  ResponseItems items = response_items(r, e);
  event("response.created", {{"response", response_object(q, r, e, "in_progress", json::array())}});
  event("response.in_progress", {{"response", response_object(q, r, e, "in_progress", json::array())}});
  json output = json::array();
  int index = 0;
  if (!items.reasoning.is_null()) {
    event("response.output_item.added", {{"output_index", index}, {"item", items.reasoning}});
    event("response.output_item.done", {{"output_index", index}, {"item", items.reasoning}});
    output.push_back(items.reasoning);
    ++index;
  }
  if (!items.message.is_null()) {
    const std::string item_id = items.message["id"];
    json opened = items.message;
    opened["status"] = "in_progress";
    opened["content"] = json::array();
    event("response.output_item.added", {{"output_index", index}, {"item", opened}});
    json part = {{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}};
    event("response.content_part.added", {{"item_id", item_id}, {"output_index", index}, {"content_index", 0}, {"part", part}});
    const auto text = pieces(r.text, e.chunk_chars);
    out.cut_at = out.events.size() + text.size() / 2;
    for (auto p : text)
      event("response.output_text.delta",
            {{"item_id", item_id}, {"output_index", index}, {"content_index", 0}, {"delta", p}, {"logprobs", json::array()}});
    event("response.output_text.done",
          {{"item_id", item_id}, {"output_index", index}, {"content_index", 0}, {"text", r.text}, {"logprobs", json::array()}});
    part["text"] = r.text;
    event("response.content_part.done", {{"item_id", item_id}, {"output_index", index}, {"content_index", 0}, {"part", part}});
    event("response.output_item.done", {{"output_index", index}, {"item", items.message}});
    output.push_back(items.message);
    ++index;
  }
  for (std::size_t k = 0; k < items.calls.size(); ++k) {
    const json& item = items.calls[k];
    const std::string item_id = item["id"];
    json opened = item;
    opened["arguments"] = "";
    opened["status"] = "in_progress";
    event("response.output_item.added", {{"output_index", index}, {"item", opened}});
    const auto args = pieces(r.calls[k].arguments, e.chunk_chars);
    if (k == 0 && items.message.is_null()) out.cut_at = out.events.size() + args.size() / 2;
    for (auto p : args) event("response.function_call_arguments.delta", {{"item_id", item_id}, {"output_index", index}, {"delta", p}});
    event("response.function_call_arguments.done",
          {{"item_id", item_id}, {"output_index", index}, {"arguments", r.calls[k].arguments}});
    event("response.output_item.done", {{"output_index", index}, {"item", item}});
    output.push_back(item);
    ++index;
  }
  const std::string status = response_status(r);
  event(status == "incomplete" ? "response.incomplete" : "response.completed",
        {{"response", response_object(q, r, e, status, std::move(output))}});
  return out;
}

}  // namespace

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json answer_body(const Query& q, const Reply& r, const Envelope& e) {
  switch (q.dialect) {
    case Dialect::Anthropic: return anthropic_body(r, e);
    case Dialect::OpenAIResponses: return responses_body(q, r, e);
    default: return chat_body(q, r, e);
  }
}

Events answer_events(const Query& q, const Reply& r, const Envelope& e) {
  switch (q.dialect) {
    case Dialect::Anthropic: return anthropic_events(r, e);
    case Dialect::OpenAIResponses: return responses_events(q, r, e);
    default: return chat_events(q, r, e);
  }
}

json error_body(Dialect dialect, const std::string& type, const std::string& message, const std::string& code) {
  if (dialect == Dialect::Anthropic) return {{"type", "error"}, {"error", {{"type", type}, {"message", message}}}};
  json error = {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code.empty() ? json(nullptr) : json(code)}};
  return {{"error", error}};
}

std::string stream_error_event(Dialect dialect, const std::string& type, const std::string& message) {
  switch (dialect) {
    case Dialect::Anthropic: return sse(error_body(dialect, type, message), "error");
    case Dialect::OpenAIResponses:
      return sse({{"type", "error"}, {"code", type}, {"message", message}, {"param", nullptr}}, "error");
    default: return sse(error_body(dialect, type, message, "injected_fault"));
  }
}

}  // namespace kgb::oracle::render
