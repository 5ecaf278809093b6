// Anthropic messages: content blocks, tool use, thinking, prompt caching
// (cache_control on the stable prefix) and the event stream
// (message_start, content_block_*, message_delta, message_stop, ping, error).
#include <map>

#include "kgb/llm/provider.h"
#include "json_walk.h"
#include "wire_util.h"

namespace kgb::llm {
namespace {

using wire::json;

// Anthropic reports the three kinds of prompt tokens apart; input_tokens
// excludes cache reads and writes.
struct RawUsage {
  int64_t input = 0, cache_creation = 0, cache_read = 0, output = 0;
  bool reported = false, estimated = false;

  void update(const json& usage) {
    if (!usage.is_object()) return;
    reported = true;
    // message_delta usage is cumulative and may omit fields: overwrite only present ones.
    if (wire::has_integer(usage, "input_tokens")) input = wire::integer(usage, "input_tokens");
    if (wire::has_integer(usage, "cache_creation_input_tokens")) cache_creation = wire::integer(usage, "cache_creation_input_tokens");
    if (wire::has_integer(usage, "cache_read_input_tokens")) cache_read = wire::integer(usage, "cache_read_input_tokens");
    if (wire::has_integer(usage, "output_tokens")) output = wire::integer(usage, "output_tokens");
    if (wire::boolean(usage, "estimated")) estimated = true;
  }

  Usage normalised() const {
    Usage u;
    u.reported = reported;
    u.estimated = estimated;
    // Bounded before they are added: a hostile count must not overflow the sum.
    u.cached_input_tokens = wire::token_count(cache_read);
    u.cache_write_tokens = wire::token_count(cache_creation);
    u.input_tokens = wire::token_count(input) + u.cache_write_tokens + u.cached_input_tokens;
    u.output_tokens = wire::token_count(output);
    return u;
  }
};

CallError error_from_body(const json& doc, std::string_view fallback_type) {
  const json* error = wire::field(doc, "error");
  return wire::mid_stream_error(error ? *error : doc, fallback_type);
}

// The fields of one stream event, whatever its type.
class EventWalker final : public wire::JsonWalker {
 public:
  struct UsageFields {
    int64_t input = 0, cache_creation = 0, cache_read = 0, output = 0;
    bool has_input = false, has_cache_creation = false, has_cache_read = false, has_output = false;
    bool present = false, estimated = false;
  };

  void reset() {
    for (std::string* field : {&type, &message_id, &message_model, &block_type, &block_text, &block_id, &block_name,
                               &delta_type, &delta_text, &delta_thinking, &delta_signature, &delta_partial_json,
                               &stop_reason, &error_type, &error_message, &error_text, &top_message, &code})
      field->clear();  // keeps capacity: one walker serves every event of a stream
    index = 0;
    usage = {};
    has_error = false;
  }

  std::string type, message_id, message_model;
  int64_t index = 0;
  UsageFields usage;  // message.usage (message_start) or usage (message_delta)
  std::string block_type, block_text, block_id, block_name;
  std::string delta_type, delta_text, delta_thinking, delta_signature, delta_partial_json, stop_reason;
  bool has_error = false;
  std::string error_type, error_message;
  // Error events in other shapes: {"error": "text"}, {"message": ...}, {"code": 500, ...}.
  std::string error_text, top_message, code;

 protected:
  void opened(bool array) override {
    if (array) return;
    if (at({"message", "usage"}) || at({"usage"})) usage.present = true;
    else if (at({"error"})) has_error = true;
  }

  void scalar(const wire::JsonScalar& v) override {
    if (depth() == 1) {
      if (at({"type"}) && v.is_string()) type.assign(v.text);
      else if (at({"index"})) index = v.integer;
      else if (at({"message"}) && v.is_string()) top_message.assign(v.text);
      else if (at({"code"})) code = v.is_string() ? std::string(v.text) : v.is_integer() ? std::to_string(v.integer) : "";
      else if (at({"error"}) && v.is_string()) {
        has_error = true;
        error_text.assign(v.text);
      }
      return;
    }
    if ((depth() == 3 && (at({"message", "usage", "input_tokens"}) || at({"message", "usage", "output_tokens"}) ||
                          at({"message", "usage", "cache_creation_input_tokens"}) ||
                          at({"message", "usage", "cache_read_input_tokens"}) || at({"message", "usage", "estimated"}))) ||
        (depth() == 2 && (at({"usage", "input_tokens"}) || at({"usage", "output_tokens"}) ||
                          at({"usage", "cache_creation_input_tokens"}) || at({"usage", "cache_read_input_tokens"}) ||
                          at({"usage", "estimated"})))) {
      usage_field(v);
      return;
    }
    if (!v.is_string()) return;
    if (at({"message", "id"})) message_id.assign(v.text);
    else if (at({"message", "model"})) message_model.assign(v.text);
    else if (at({"content_block", "type"})) block_type.assign(v.text);
    else if (at({"content_block", "text"})) block_text.assign(v.text);
    else if (at({"content_block", "id"})) block_id.assign(v.text);
    else if (at({"content_block", "name"})) block_name.assign(v.text);
    else if (at({"delta", "type"})) delta_type.assign(v.text);
    else if (at({"delta", "text"})) delta_text.assign(v.text);
    else if (at({"delta", "thinking"})) delta_thinking.assign(v.text);
    else if (at({"delta", "signature"})) delta_signature.assign(v.text);
    else if (at({"delta", "partial_json"})) delta_partial_json.assign(v.text);
    else if (at({"delta", "stop_reason"})) stop_reason.assign(v.text);
    else if (at({"error", "type"})) error_type.assign(v.text);
    else if (at({"error", "message"})) error_message.assign(v.text);
    else if (at({"error", "code"})) code.assign(v.text);
  }

 private:
  // The last path element names the usage field.
  void usage_field(const wire::JsonScalar& v) {
    const bool nested = depth() == 3;
    auto is = [&](std::string_view name) {
      return nested ? at({"message", "usage", name}) : at({"usage", name});
    };
    if (is("estimated")) {
      usage.estimated = v.kind == wire::JsonScalar::Kind::Bool && v.boolean;
    } else if (!v.is_integer()) {
      return;  // null: absent
    } else if (is("input_tokens")) {
      usage.input = v.integer;
      usage.has_input = true;
    } else if (is("output_tokens")) {
      usage.output = v.integer;
      usage.has_output = true;
    } else if (is("cache_creation_input_tokens")) {
      usage.cache_creation = v.integer;
      usage.has_cache_creation = true;
    } else if (is("cache_read_input_tokens")) {
      usage.cache_read = v.integer;
      usage.has_cache_read = true;
    }
  }
};

class AnthropicStreamDecoder final : public StreamDecoder {
 public:
  bool on_event(const SseEvent& event, const DeltaHandler& emit) override {
    walker_.reset();
    const bool parsed = walker_.walk(event.data);
    const EventWalker& e = walker_;
    // An error event, whatever its shape: the SSE event name, the JSON type
    // or an "error" member says so, and the text is kept from wherever it is.
    if (event.event == "error" || (parsed && (e.type == "error" || e.has_error))) {
      json error = json::object();
      if (parsed) {
        std::string type = e.error_type;
        if (type.empty() && e.type != "error") type = e.type;
        if (type.empty()) type = e.code;
        std::string message = e.error_message;
        for (const std::string* other : {&e.error_text, &e.top_message})
          if (message.empty()) message = *other;
        if (message.empty()) message = "the server sent an error event: " + wire::excerpt(event.data);
        error = {{"type", type}, {"message", message}};
      } else {
        error = {{"message", "the server sent an error event: " + wire::excerpt(event.data)}};
      }
      error_ = wire::mid_stream_error(error, "api_error");
      return false;
    }
    if (!parsed) {
      error_ = wire::malformed("stream event is not JSON: " + wire::excerpt(event.data));
      return false;
    }
    const std::string& type = e.type.empty() ? event.event : e.type;
    ChatResponse& r = reply_.response;
    if (e.usage.present) {
      // message_delta usage is cumulative and may omit fields: overwrite only present ones.
      usage_.reported = true;
      if (e.usage.has_input) usage_.input = e.usage.input;
      if (e.usage.has_cache_creation) usage_.cache_creation = e.usage.cache_creation;
      if (e.usage.has_cache_read) usage_.cache_read = e.usage.cache_read;
      if (e.usage.has_output) usage_.output = e.usage.output;
      if (e.usage.estimated) usage_.estimated = true;
    }
    if (type == "message_start") {
      r.id = e.message_id;
      r.model = e.message_model;
    } else if (type == "content_block_start") {
      if (e.block_type == "tool_use") {
        tool_slot_[e.index] = tool_calls_.size();
        tool_calls_.push_back({e.block_id, e.block_name, ""});
        produced_ = true;
        const ToolCall& call = tool_calls_.back();
        StreamDelta d = StreamDelta::of(StreamDelta::Kind::ToolCall);
        d.tool_index = static_cast<int>(tool_calls_.size() - 1);
        d.tool_id = call.id;
        d.tool_name = call.name;
        if (emit) emit(d);
      } else if (e.block_type == "text") {
        append_text(e.block_text, emit);
      }
    } else if (type == "content_block_delta") {
      if (e.delta_type == "text_delta") {
        append_text(e.delta_text, emit);
      } else if (e.delta_type == "thinking_delta") {
        r.reasoning += e.delta_thinking;
        produced_ = true;
        if (emit && !e.delta_thinking.empty()) emit(StreamDelta::of(StreamDelta::Kind::Reasoning, e.delta_thinking));
      } else if (e.delta_type == "signature_delta") {
        r.reasoning_signature += e.delta_signature;
      } else if (e.delta_type == "input_json_delta") {
        auto slot = tool_slot_.find(e.index);
        if (slot == tool_slot_.end()) return true;
        tool_calls_[slot->second].arguments += e.delta_partial_json;
        produced_ = true;
        StreamDelta d = StreamDelta::of(StreamDelta::Kind::ToolCall, e.delta_partial_json);
        d.tool_index = static_cast<int>(slot->second);
        if (emit) emit(d);
      }
    } else if (type == "message_delta") {
      if (!e.stop_reason.empty()) r.raw_finish_reason = e.stop_reason;
    } else if (type == "message_stop") {
      saw_stop_ = true;
    }
    // ping, content_block_stop and future event types need nothing.
    return true;
  }

  ParsedReply finish(bool body_complete) override {
    ChatResponse& r = reply_.response;
    r.usage = usage_.normalised();
    r.finish_reason = wire::normalise_finish_reason(r.raw_finish_reason);
    for (ToolCall& call : tool_calls_) {
      if (call.arguments.empty()) call.arguments = "{}";
      r.tool_calls.push_back(std::move(call));
    }
    tool_calls_.clear();
    if (error_) {
      reply_.error = std::move(error_);
    } else if (!saw_stop_) {
      CallError error;
      error.kind = ErrorKind::Truncated;
      error.http_status = 200;
      error.message = body_complete ? "the stream ended without message_stop"
                                    : "the connection closed in the middle of the stream";
      error.retryable = true;
      reply_.error = std::move(error);
    }
    return std::move(reply_);
  }

  bool produced_output() const override { return produced_; }

 private:
  void append_text(const std::string& piece, const DeltaHandler& emit) {
    if (piece.empty()) return;
    reply_.response.text += piece;
    produced_ = true;
    if (emit) emit(StreamDelta::of(StreamDelta::Kind::Text, piece));
  }

  EventWalker walker_;
  ParsedReply reply_;
  RawUsage usage_;
  std::optional<CallError> error_;
  std::map<int64_t, std::size_t> tool_slot_;  // content block index -> tool call
  std::vector<ToolCall> tool_calls_;
  bool saw_stop_ = false;
  bool produced_ = false;
};

class AnthropicApi final : public ProviderApi {
 public:
  explicit AnthropicApi(const ProviderConfig& config) : config_(config) {}

  WireRequest build(const ChatRequest& request, const ModelQuirks& quirks) const override {
    json body = json::object();
    body["model"] = request.model;
    body["max_tokens"] = request.max_output_tokens.value_or(config_.default_max_output_tokens);

    // System-role messages become part of the system prompt: the API has no
    // system turns.
    std::string system = request.system;
    for (const Message& m : request.messages)
      if (m.role == Role::System) system += (system.empty() ? "" : "\n\n") + m.content;
    if (!system.empty()) {
      json block = {{"type", "text"}, {"text", system}};
      if (request.cache_system_prompt) block["cache_control"] = {{"type", "ephemeral"}};
      body["system"] = json::array({block});
    }

    json messages = json::array();
    auto append = [&](const char* role, json block, bool breakpoint) {
      if (breakpoint) block["cache_control"] = {{"type", "ephemeral"}};
      // Consecutive same-role turns (several tool results) share one message.
      if (!messages.empty() && messages.back()["role"] == role) messages.back()["content"].push_back(std::move(block));
      else messages.push_back({{"role", role}, {"content", json::array({std::move(block)})}});
    };
    for (const Message& m : request.messages) {
      switch (m.role) {
        case Role::System:
          break;
        case Role::User:
          append("user", {{"type", "text"}, {"text", m.content}}, m.cache_breakpoint);
          break;
        case Role::Tool:
          append("user", {{"type", "tool_result"}, {"tool_use_id", m.tool_call_id}, {"content", m.content}},
                 m.cache_breakpoint);
          break;
        case Role::Assistant: {
          std::vector<json> blocks;
          if (!m.reasoning_signature.empty())
            blocks.push_back({{"type", "thinking"}, {"thinking", m.reasoning}, {"signature", m.reasoning_signature}});
          if (!m.content.empty()) blocks.push_back({{"type", "text"}, {"text", m.content}});
          for (const ToolCall& call : m.tool_calls) {
            json input = json::parse(call.arguments.empty() ? std::string("{}") : call.arguments, nullptr, false);
            if (input.is_discarded() || !input.is_object()) input = json::object();
            blocks.push_back({{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", std::move(input)}});
          }
          if (blocks.empty()) blocks.push_back({{"type", "text"}, {"text", ""}});
          for (std::size_t i = 0; i < blocks.size(); ++i)
            append("assistant", std::move(blocks[i]), m.cache_breakpoint && i + 1 == blocks.size());
          break;
        }
      }
    }
    body["messages"] = std::move(messages);

    if (!request.tools.empty()) {
      json tools = json::array();
      for (const ToolSpec& tool : request.tools)
        tools.push_back({{"name", tool.name}, {"description", tool.description}, {"input_schema", tool.parameters}});
      body["tools"] = std::move(tools);
      switch (request.tool_choice.mode) {
        case ToolChoice::Mode::Auto: break;
        case ToolChoice::Mode::None: body["tool_choice"] = {{"type", "none"}}; break;
        case ToolChoice::Mode::Required: body["tool_choice"] = {{"type", "any"}}; break;
        case ToolChoice::Mode::Named: body["tool_choice"] = {{"type", "tool"}, {"name", request.tool_choice.name}}; break;
      }
    }
    if (request.thinking_budget) {
      body["thinking"] = {{"type", "enabled"}, {"budget_tokens", *request.thinking_budget}};
    } else if (quirks.temperature_supported) {
      // Extended thinking requires the default sampling: send neither then.
      if (request.temperature) body["temperature"] = *request.temperature;
      if (request.top_p) body["top_p"] = *request.top_p;
    }
    if (request.stream) body["stream"] = true;
    wire::merge_extra(body, request.extra);

    WireRequest out;
    out.path = "/messages";
    out.body = body.dump();
    out.headers.push_back({"content-type", "application/json"});
    out.headers.push_back({"accept", request.stream ? "text/event-stream" : "application/json"});
    out.headers.push_back({"anthropic-version", config_.anthropic_version});
    for (const auto& [name, value] : config_.headers) out.headers.push_back({name, value});
    for (const auto& [name, value] : request.headers) out.headers.push_back({name, value});
    return out;
  }

  void add_auth(std::string_view api_key, std::vector<HttpHeader>& headers) const override {
    headers.push_back({"x-api-key", std::string(api_key)});
  }

  ParsedReply parse_response(std::string_view body) const override {
    ParsedReply reply;
    json doc = json::parse(body, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      reply.error = wire::malformed("response is not a JSON object: " + wire::excerpt(body));
      return reply;
    }
    if (wire::text(doc, "type") == "error") {
      reply.error = error_from_body(doc, "api_error");
      return reply;
    }
    ChatResponse& r = reply.response;
    RawUsage usage;
    if (const json* u = wire::field(doc, "usage")) usage.update(*u);
    r.usage = usage.normalised();
    const json* content = wire::field(doc, "content");
    if (!content || !content->is_array()) {
      reply.error = wire::malformed("response has no content array: " + wire::excerpt(body));
      return reply;
    }
    r.id = wire::text(doc, "id");
    r.model = wire::text(doc, "model");
    for (const json& block : *content) {
      const std::string kind = wire::text(block, "type");
      if (kind == "text") {
        r.text += wire::text(block, "text");
      } else if (kind == "thinking") {
        r.reasoning += wire::text(block, "thinking");
        r.reasoning_signature = wire::text(block, "signature");
      } else if (kind == "tool_use") {
        const json* input = wire::field(block, "input");
        r.tool_calls.push_back({wire::text(block, "id"), wire::text(block, "name"), input ? input->dump() : "{}"});
      }
    }
    r.raw_finish_reason = wire::text(doc, "stop_reason");
    r.finish_reason = wire::normalise_finish_reason(r.raw_finish_reason);
    return reply;
  }

  CallError parse_error(const HttpResponse& response) const override {
    std::string type, message;
    json doc = json::parse(response.body, nullptr, false);
    if (!doc.is_discarded() && doc.is_object()) {
      const json* error = wire::field(doc, "error");
      const json& source = error && error->is_object() ? *error : doc;
      type = wire::text(source, "type");
      message = wire::text(source, "message");
    }
    if (message.empty()) message = wire::excerpt(response.body);
    return classify_http_error(response.status, std::move(type), "", std::move(message), response);
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<AnthropicStreamDecoder>(); }

 private:
  ProviderConfig config_;
};

}  // namespace

std::unique_ptr<ProviderApi> make_anthropic_api(const ProviderConfig& config) {
  return std::make_unique<AnthropicApi>(config);
}

}  // namespace kgb::llm
