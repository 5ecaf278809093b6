// The OpenAI and Anthropic stream decoders behind the SSE splitter, on
// arbitrary bytes. The first byte picks the provider and a chunk size; the
// rest is the HTTP body of a streamed answer. Invariants: the text and
// reasoning the caller saw as deltas are exactly what the final response
// holds; no output means no text and no tool calls; token counts are never
// negative nor near overflow, whatever the server claims (corpus:
// anthropic_usage_overflow.sse once overflowed their sum); and feeding the
// body in small chunks gives the same response as feeding it whole.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kgb/llm/provider.h"
#include "kgb/llm/sse.h"

namespace {

using namespace kgb::llm;

struct Decoded {
  ParsedReply reply;
  std::string streamed_text, streamed_reasoning;
  bool produced = false;
};

Decoded decode(ApiKind api, std::string_view body, std::size_t chunk) {
  ProviderConfig config;
  config.name = "fuzz";
  config.api = api;
  config.base_url = "http://127.0.0.1:1/v1";
  const auto provider = make_provider_api(config);
  const auto decoder = provider->stream_decoder();
  Decoded out;
  const DeltaHandler emit = [&out](const StreamDelta& d) {
    if (d.kind == StreamDelta::Kind::Text) out.streamed_text.append(d.text);
    if (d.kind == StreamDelta::Kind::Reasoning) out.streamed_reasoning.append(d.text);
  };
  bool stopped = false;
  SseParser parser([&](const SseEvent& event) {
    if (!decoder->on_event(event, emit)) stopped = true;
    return !stopped;
  });
  for (std::size_t at = 0; at < body.size() && !stopped; at += chunk) parser.feed(body.substr(at, chunk));
  if (!stopped) parser.finish();
  out.produced = decoder->produced_output();
  // A body that the decoder stopped reading counts as cut off.
  out.reply = decoder->finish(/*body_complete=*/!stopped);
  return out;
}

bool sane_counts(const Usage& u) {
  for (int64_t count : {u.input_tokens, u.cached_input_tokens, u.cache_write_tokens, u.output_tokens, u.reasoning_tokens})
    if (count < 0 || count > (int64_t{1} << 52)) return false;
  return true;
}

bool same_call(const ToolCall& a, const ToolCall& b) { return a.id == b.id && a.name == b.name && a.arguments == b.arguments; }

bool same_reply(const ParsedReply& a, const ParsedReply& b) {
  const ChatResponse &x = a.response, &y = b.response;
  if (x.id != y.id || x.model != y.model || x.text != y.text || x.reasoning != y.reasoning ||
      x.reasoning_signature != y.reasoning_signature || x.finish_reason != y.finish_reason || !(x.usage == y.usage))
    return false;
  if (x.tool_calls.size() != y.tool_calls.size()) return false;
  for (std::size_t i = 0; i < x.tool_calls.size(); ++i)
    if (!same_call(x.tool_calls[i], y.tool_calls[i])) return false;
  if (a.error.has_value() != b.error.has_value()) return false;
  return !a.error || (a.error->kind == b.error->kind && a.error->message == b.error->message &&
                      a.error->retryable == b.error->retryable);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const ApiKind api = data[0] & 1 ? ApiKind::Anthropic : ApiKind::OpenAI;
  const std::size_t chunk = 1 + (data[0] >> 1) % 17;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Decoded whole = decode(api, body, body.size() + 1);
  const ChatResponse& r = whole.reply.response;
  if (whole.streamed_text != r.text || whole.streamed_reasoning != r.reasoning) std::abort();
  if (!sane_counts(r.usage)) std::abort();
  if (!whole.produced && (!r.text.empty() || !r.reasoning.empty() || !r.tool_calls.empty())) std::abort();
  if (!same_reply(whole.reply, decode(api, body, chunk).reply)) std::abort();
  return 0;
}
