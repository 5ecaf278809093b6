// Incremental decoder of an HTTP/1.1 response body: chunked transfer-coding
// (chunk extensions and trailers skipped), a Content-Length, or "until the
// connection closes". Payload comes out as views into the bytes fed in, so a
// read of many small chunks costs no copy and no allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace kgb::llm {

class BodyDecoder {
 public:
  enum class Framing { Chunked, Length, UntilClose };
  enum class Status {
    More,       // needs more bytes
    Done,       // the body ended where its framing said
    Stopped,    // the payload callback asked to stop
    Malformed,  // invalid chunk framing
    TooLarge,   // more payload than the limit
  };
  // Receives payload bytes; false stops decoding.
  using Sink = std::function<bool(std::string_view payload)>;

  BodyDecoder(Framing framing, uint64_t content_length, std::size_t max_body_bytes);

  // Decodes `bytes`. `consumed` receives how many were used: on Done the rest
  // belongs to whatever follows the body on the connection.
  Status feed(std::string_view bytes, std::size_t& consumed, const Sink& sink);
  // The peer closed the connection: Done when that is how the body ends,
  // More (truncated) otherwise.
  Status end_of_input() const;

  bool done() const { return state_ == State::Done; }
  uint64_t payload_bytes() const { return payload_; }

 private:
  enum class State { Size, Extension, SizeLf, Data, DataCr, DataLf, TrailerStart, Trailer, TrailerLf, LastLf, Done };
  bool payload(std::string_view piece, const Sink& sink, Status& status);

  Framing framing_;
  State state_;
  uint64_t remaining_ = 0;  // of the current chunk, or of the Content-Length body
  uint64_t payload_ = 0;
  std::size_t limit_;
  std::size_t size_digits_ = 0;
  std::size_t line_bytes_ = 0;  // of the current size line or trailer section
};

}  // namespace kgb::llm
