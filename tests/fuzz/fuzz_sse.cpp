// The SSE splitter on arbitrary bytes cut into arbitrary chunks. Invariant:
// how the stream is chunked never changes the events that come out.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "kgb/llm/sse.h"

namespace {

std::vector<std::string> events_of(std::string_view stream, std::size_t chunk) {
  std::vector<std::string> out;
  kgb::llm::SseParser parser([&](const kgb::llm::SseEvent& e) {
    out.push_back(e.event + '\x1f' + e.data + '\x1f' + e.id);
    return true;
  });
  for (std::size_t at = 0; at < stream.size(); at += chunk) parser.feed(stream.substr(at, chunk));
  parser.finish();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the chunk size; the rest is the stream.
  const std::size_t chunk = 1 + data[0] % 17;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (events_of(stream, chunk) != events_of(stream, stream.size() + 1)) std::abort();
  return 0;
}
