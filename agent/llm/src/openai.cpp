// OpenAI-compatible chat completions: request bodies, full answers, error
// bodies and the chunk stream (data: {...} ... data: [DONE]).
#include "kgb/llm/provider.h"
#include "json_walk.h"
#include "wire_util.h"

namespace kgb::llm {
namespace {

using wire::json;

Usage parse_usage(const json& usage) {
  Usage u;
  if (!usage.is_object()) return u;
  u.reported = true;
  u.input_tokens = wire::integer(usage, "prompt_tokens");
  u.output_tokens = wire::integer(usage, "completion_tokens");
  if (const json* details = wire::field(usage, "prompt_tokens_details"))
    u.cached_input_tokens = wire::integer(*details, "cached_tokens");
  else if (wire::has_integer(usage, "prompt_cache_hit_tokens"))  // DeepSeek's spelling
    u.cached_input_tokens = wire::integer(usage, "prompt_cache_hit_tokens");
  if (const json* details = wire::field(usage, "completion_tokens_details"))
    u.reasoning_tokens = wire::integer(*details, "reasoning_tokens");
  u.estimated = wire::boolean(usage, "estimated");
  return wire::token_counts(u);
}

// Servers disagree on the name of the reasoning text: DeepSeek and vLLM
// (older) use reasoning_content, OpenRouter and newer vLLM use reasoning.
std::string reasoning_of(const json& message) {
  std::string text = wire::text(message, "reasoning_content");
  if (text.empty()) text = wire::text(message, "reasoning");
  return text;
}

ToolCall parse_tool_call(const json& call) {
  ToolCall out;
  out.id = wire::text(call, "id");
  if (const json* function = wire::field(call, "function")) {
    out.name = wire::text(*function, "name");
    if (const json* args = wire::field(*function, "arguments"))
      out.arguments = args->is_string() ? args->get<std::string>() : args->dump();
  }
  return out;
}

// Collects what one chunk says. Choices and tool-call pieces are committed
// when their object closes, since "index" may come after the payload.
class ChunkWalker final : public wire::JsonWalker {
 public:
  struct ToolPiece {
    int64_t index = 0;
    std::string id, name, arguments;
  };
  struct Choice {
    int64_t index = 0;
    std::string content, reasoning;
    bool has_content = false, has_reasoning = false;
    std::string finish_reason;
    std::vector<ToolPiece> tools;
  };

  void reset() {
    id.clear();
    model.clear();
    // Choices are kept, not destroyed, so their strings keep their capacity:
    // a delta no longer costs an allocation per event.
    for (std::size_t i = 0; i < used; ++i) {
      Choice& c = choices[i];
      c.index = 0;
      c.content.clear();
      c.reasoning.clear();
      c.has_content = c.has_reasoning = false;
      c.finish_reason.clear();
      c.tools.clear();
    }
    used = 0;
    has_usage = has_error = error_is_text = false;
    usage = {};
    error_type.clear();
    error_code.clear();
    error_message.clear();
    top_type.clear();
    top_code.clear();
    top_message.clear();
  }

  std::string id, model;
  std::vector<Choice> choices;  // the first `used` belong to the current chunk
  std::size_t used = 0;
  bool has_usage = false;
  Usage usage;
  bool has_error = false, error_is_text = false;
  std::string error_type, error_code, error_message;
  std::string top_type, top_code, top_message;  // an error event may carry them at the top

 protected:
  void opened(bool array) override {
    if (!array && at({"choices", "#"})) {
      if (used == choices.size()) choices.emplace_back();
      ++used;
    } else if (!array && at({"choices", "#", "delta", "tool_calls", "#"}) && used > 0)
      choices[used - 1].tools.emplace_back();
    else if (!array && at({"usage"})) {
      has_usage = true;
      usage = {};
      usage.reported = true;
    } else if (!array && at({"error"})) {
      has_error = true;
    }
  }

  void scalar(const wire::JsonScalar& v) override {
    const std::size_t d = depth();
    if (d == 1) {
      if (at({"id"}) && v.is_string()) id.assign(v.text);
      else if (at({"model"}) && v.is_string()) model.assign(v.text);
      else if (at({"error"}) && v.is_string()) {
        has_error = error_is_text = true;
        error_message.assign(v.text);
      } else if (at({"type"}) && v.is_string()) top_type.assign(v.text);
      else if (at({"code"})) top_code = text_of(v);
      else if (at({"message"}) && v.is_string()) top_message.assign(v.text);
      return;
    }
    if (at({"usage", "prompt_tokens"})) usage.input_tokens = v.integer;
    else if (at({"usage", "completion_tokens"})) usage.output_tokens = v.integer;
    else if (at({"usage", "prompt_tokens_details", "cached_tokens"})) usage.cached_input_tokens = v.integer;
    else if (at({"usage", "prompt_cache_hit_tokens"})) cache_hit_ = v.integer, has_cache_hit_ = true;
    else if (at({"usage", "completion_tokens_details", "reasoning_tokens"})) usage.reasoning_tokens = v.integer;
    else if (at({"usage", "estimated"})) usage.estimated = v.kind == wire::JsonScalar::Kind::Bool && v.boolean;
    else if (at({"error", "type"})) error_type = text_of(v);
    else if (at({"error", "code"})) error_code = text_of(v);
    else if (at({"error", "message"})) error_message = text_of(v);
    else if (used == 0) return;
    else if (at({"choices", "#", "index"})) choices[used - 1].index = v.integer;
    else if (at({"choices", "#", "finish_reason"}) && v.is_string()) choices[used - 1].finish_reason.assign(v.text);
    else if (at({"choices", "#", "delta", "content"}) && v.is_string()) {
      choices[used - 1].content.assign(v.text);
      choices[used - 1].has_content = true;
    } else if ((at({"choices", "#", "delta", "reasoning_content"}) || at({"choices", "#", "delta", "reasoning"})) &&
               v.is_string() && !choices[used - 1].has_reasoning) {
      // A server sending both names sends the same text twice: keep the first.
      choices[used - 1].reasoning.assign(v.text);
      choices[used - 1].has_reasoning = !v.text.empty();
    } else if (!choices[used - 1].tools.empty()) {
      ToolPiece& piece = choices[used - 1].tools.back();
      if (at({"choices", "#", "delta", "tool_calls", "#", "index"})) piece.index = v.integer;
      else if (at({"choices", "#", "delta", "tool_calls", "#", "id"}) && v.is_string()) piece.id.assign(v.text);
      else if (at({"choices", "#", "delta", "tool_calls", "#", "function", "name"}) && v.is_string()) piece.name.assign(v.text);
      else if (at({"choices", "#", "delta", "tool_calls", "#", "function", "arguments"}) && v.is_string())
        piece.arguments.assign(v.text);
    }
  }

  void closed(bool array) override {
    if (!array && at({"usage"}) && has_cache_hit_ && usage.cached_input_tokens == 0) usage.cached_input_tokens = cache_hit_;
  }

 private:
  static std::string text_of(const wire::JsonScalar& v) {
    if (v.is_string()) return std::string(v.text);
    if (v.is_integer()) return std::to_string(v.integer);
    return {};
  }
  int64_t cache_hit_ = 0;
  bool has_cache_hit_ = false;
};

class OpenAiStreamDecoder final : public StreamDecoder {
 public:
  bool on_event(const SseEvent& event, const DeltaHandler& emit) override {
    if (event.data == "[DONE]") {
      saw_done_ = true;
      return true;
    }
    walker_.reset();
    if (!walker_.walk(event.data)) {
      // An error event keeps its text even when it is not JSON.
      error_ = event.event == "error"
                   ? wire::mid_stream_error(json("the server sent an error event: " + wire::excerpt(event.data)), "server_error")
                   : wire::malformed("stream event is not a JSON object: " + wire::excerpt(event.data));
      return false;
    }
    if (event.event == "error" || walker_.has_error) {
      json error = json::object();
      if (walker_.has_error) {
        if (walker_.error_is_text) error = walker_.error_message;
        else error = {{"type", walker_.error_type}, {"code", walker_.error_code}, {"message", walker_.error_message}};
      } else {
        error = {{"type", walker_.top_type}, {"code", walker_.top_code}, {"message", walker_.top_message}};
      }
      error_ = wire::mid_stream_error(error, "server_error");
      return false;
    }
    ChatResponse& r = reply_.response;
    if (r.id.empty()) r.id = walker_.id;
    if (r.model.empty()) r.model = walker_.model;
    if (walker_.has_usage) r.usage = wire::token_counts(walker_.usage);
    for (std::size_t i = 0; i < walker_.used; ++i) {
      ChunkWalker::Choice& choice = walker_.choices[i];
      if (choice.index != 0) continue;  // n > 1 is not used by the agent
      if (choice.has_content && !choice.content.empty()) {
        r.text += choice.content;
        produced_ = true;
        if (emit) emit(StreamDelta::of(StreamDelta::Kind::Text, choice.content));
      }
      if (choice.has_reasoning) {
        r.reasoning += choice.reasoning;
        produced_ = true;
        if (emit) emit(StreamDelta::of(StreamDelta::Kind::Reasoning, choice.reasoning));
      }
      for (const ChunkWalker::ToolPiece& piece : choice.tools) on_tool_piece(piece, emit);
      if (!choice.finish_reason.empty()) {
        r.raw_finish_reason = choice.finish_reason;
        saw_finish_ = true;
      }
    }
    return true;
  }

  ParsedReply finish(bool body_complete) override {
    ChatResponse& r = reply_.response;
    r.finish_reason = wire::normalise_finish_reason(r.raw_finish_reason);
    for (auto& call : tool_calls_)
      if (!call.name.empty() || !call.id.empty()) r.tool_calls.push_back(std::move(call));
    tool_calls_.clear();
    if (error_) {
      reply_.error = std::move(error_);
    } else if (!saw_done_ && !(body_complete && saw_finish_)) {
      // Lenient about a missing [DONE] only when HTTP framing ended cleanly
      // after a finish_reason; anything else is a cut stream.
      CallError error;
      error.kind = ErrorKind::Truncated;
      error.http_status = 200;
      error.message = body_complete ? "the stream ended without a finish_reason or [DONE]"
                                    : "the connection closed in the middle of the stream";
      error.retryable = true;
      reply_.error = std::move(error);
    }
    return std::move(reply_);
  }

  bool produced_output() const override { return produced_; }

 private:
  void on_tool_piece(const ChunkWalker::ToolPiece& piece, const DeltaHandler& emit) {
    if (piece.index < 0 || piece.index > 1024) return;
    if (tool_calls_.size() <= static_cast<std::size_t>(piece.index)) tool_calls_.resize(piece.index + 1);
    ToolCall& slot = tool_calls_[piece.index];
    StreamDelta d = StreamDelta::of(StreamDelta::Kind::ToolCall, piece.arguments);
    d.tool_index = static_cast<int>(piece.index);
    if (!piece.id.empty()) slot.id = piece.id;
    if (!piece.name.empty()) {
      slot.name += piece.name;
      d.tool_name = slot.name;
      d.tool_id = slot.id;
    }
    slot.arguments += piece.arguments;
    produced_ = true;
    if (emit) emit(d);
  }

  ChunkWalker walker_;
  ParsedReply reply_;
  std::optional<CallError> error_;
  std::vector<ToolCall> tool_calls_;
  bool saw_done_ = false;
  bool saw_finish_ = false;
  bool produced_ = false;
};

class OpenAiApi final : public ProviderApi {
 public:
  explicit OpenAiApi(const ProviderConfig& config) : config_(config) {}

  WireRequest build(const ChatRequest& request, const ModelQuirks& quirks) const override {
    json body = json::object();
    body["model"] = request.model;
    json messages = json::array();
    if (!request.system.empty()) messages.push_back({{"role", "system"}, {"content", request.system}});
    for (const Message& m : request.messages) {
      json message = {{"role", std::string(to_string(m.role))}};
      switch (m.role) {
        case Role::System:
        case Role::User:
          message["content"] = m.content;
          break;
        case Role::Assistant:
          message["content"] = m.content.empty() && !m.tool_calls.empty() ? json(nullptr) : json(m.content);
          if (!m.tool_calls.empty()) {
            json calls = json::array();
            for (const ToolCall& call : m.tool_calls)
              calls.push_back({{"id", call.id},
                               {"type", "function"},
                               {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
            message["tool_calls"] = std::move(calls);
          }
          break;
        case Role::Tool:
          message["tool_call_id"] = m.tool_call_id;
          message["content"] = m.content;
          break;
      }
      messages.push_back(std::move(message));
    }
    body["messages"] = std::move(messages);
    if (!request.tools.empty()) {
      json tools = json::array();
      for (const ToolSpec& tool : request.tools)
        tools.push_back({{"type", "function"},
                         {"function", {{"name", tool.name}, {"description", tool.description}, {"parameters", tool.parameters}}}});
      body["tools"] = std::move(tools);
      switch (request.tool_choice.mode) {
        case ToolChoice::Mode::Auto: break;
        case ToolChoice::Mode::None: body["tool_choice"] = "none"; break;
        case ToolChoice::Mode::Required: body["tool_choice"] = "required"; break;
        case ToolChoice::Mode::Named:
          body["tool_choice"] = {{"type", "function"}, {"function", {{"name", request.tool_choice.name}}}};
          break;
      }
    }
    if (quirks.temperature_supported) {
      if (request.temperature) body["temperature"] = *request.temperature;
      if (request.top_p) body["top_p"] = *request.top_p;
    }
    if (request.max_output_tokens)
      body[quirks.max_completion_tokens ? "max_completion_tokens" : "max_tokens"] = *request.max_output_tokens;
    if (request.seed) body["seed"] = *request.seed;
    if (!request.reasoning_effort.empty()) body["reasoning_effort"] = request.reasoning_effort;
    if (request.stream) {
      body["stream"] = true;
      if (config_.stream_usage) body["stream_options"] = {{"include_usage", true}};
    }
    wire::merge_extra(body, request.extra);

    WireRequest out;
    out.path = "/chat/completions";
    out.body = body.dump();
    out.headers.push_back({"content-type", "application/json"});
    out.headers.push_back({"accept", request.stream ? "text/event-stream" : "application/json"});
    for (const auto& [name, value] : config_.headers) out.headers.push_back({name, value});
    for (const auto& [name, value] : request.headers) out.headers.push_back({name, value});
    return out;
  }

  void add_auth(std::string_view api_key, std::vector<HttpHeader>& headers) const override {
    headers.push_back({"authorization", "Bearer " + std::string(api_key)});
  }

  ParsedReply parse_response(std::string_view body) const override {
    ParsedReply reply;
    json doc = json::parse(body, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      reply.error = wire::malformed("response is not a JSON object: " + wire::excerpt(body));
      return reply;
    }
    if (const json* usage = wire::field(doc, "usage")) reply.response.usage = parse_usage(*usage);
    if (const json* error = wire::field(doc, "error")) {
      reply.error = wire::mid_stream_error(*error, "server_error");
      return reply;
    }
    ChatResponse& r = reply.response;
    r.id = wire::text(doc, "id");
    r.model = wire::text(doc, "model");
    const json* choices = wire::field(doc, "choices");
    if (!choices || !choices->is_array() || choices->empty() || !(*choices)[0].is_object()) {
      reply.error = wire::malformed("response has no choices: " + wire::excerpt(body));
      return reply;
    }
    const json& choice = (*choices)[0];
    const json* message = wire::field(choice, "message");
    if (!message || !message->is_object()) {
      reply.error = wire::malformed("response choice has no message: " + wire::excerpt(body));
      return reply;
    }
    r.text = wire::text(*message, "content");
    r.reasoning = reasoning_of(*message);
    if (const json* calls = wire::field(*message, "tool_calls"); calls && calls->is_array())
      for (const json& call : *calls) r.tool_calls.push_back(parse_tool_call(call));
    r.raw_finish_reason = wire::text(choice, "finish_reason");
    r.finish_reason = wire::normalise_finish_reason(r.raw_finish_reason);
    return reply;
  }

  CallError parse_error(const HttpResponse& response) const override {
    std::string type, code, message;
    json doc = json::parse(response.body, nullptr, false);
    if (!doc.is_discarded() && doc.is_object()) {
      const json* error = wire::field(doc, "error");
      const json& source = error && error->is_object() ? *error : doc;
      type = wire::text(source, "type");
      code = wire::text(source, "code");
      message = wire::text(source, "message");
      if (error && error->is_string()) message = error->get<std::string>();
      if (message.empty()) message = wire::text(doc, "detail");
    }
    if (message.empty()) message = wire::excerpt(response.body);
    return classify_http_error(response.status, std::move(type), std::move(code), std::move(message), response);
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<OpenAiStreamDecoder>(); }

 private:
  ProviderConfig config_;
};

}  // namespace

std::unique_ptr<ProviderApi> make_openai_api(const ProviderConfig& config) { return std::make_unique<OpenAiApi>(config); }

}  // namespace kgb::llm
