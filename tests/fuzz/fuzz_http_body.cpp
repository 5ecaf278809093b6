// The HTTP body decoder (chunked, Content-Length, until close) on arbitrary
// bytes fed in arbitrary pieces. Invariants: payload never exceeds the limit,
// `consumed` never exceeds what was fed, and chunking the input does not
// change the payload or the final status.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kgb/llm/http_body.h"

namespace {

using kgb::llm::BodyDecoder;

struct Outcome {
  BodyDecoder::Status status;
  std::string payload;
  std::size_t used;
};

Outcome decode(BodyDecoder::Framing framing, uint64_t length, std::size_t limit, std::string_view bytes, std::size_t piece) {
  BodyDecoder decoder(framing, length, limit);
  Outcome o{BodyDecoder::Status::More, {}, 0};
  for (std::size_t at = 0; at < bytes.size() && o.status == BodyDecoder::Status::More; at += piece) {
    const std::string_view part = bytes.substr(at, piece);
    std::size_t consumed = 0;
    o.status = decoder.feed(part, consumed, [&](std::string_view p) {
      o.payload.append(p);
      return true;
    });
    if (consumed > part.size()) std::abort();
    o.used += consumed;
  }
  if (o.status == BodyDecoder::Status::More) o.status = decoder.end_of_input();
  if (o.payload.size() > limit || decoder.payload_bytes() != o.payload.size()) std::abort();
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const auto framing = static_cast<BodyDecoder::Framing>(data[0] % 3);
  const uint64_t length = data[1] * 7u;
  const std::size_t piece = 1 + data[2] % 13;
  const std::size_t limit = 4096;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 3, size - 3);
  const Outcome whole = decode(framing, length, limit, bytes, bytes.size() + 1);
  const Outcome pieces = decode(framing, length, limit, bytes, piece);
  if (whole.status != pieces.status || whole.payload != pieces.payload) std::abort();
  if (whole.status == BodyDecoder::Status::Done && whole.used != pieces.used) std::abort();
  return 0;
}
