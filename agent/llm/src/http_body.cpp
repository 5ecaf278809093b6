#include "kgb/llm/http_body.h"

#include <algorithm>

namespace kgb::llm {

namespace {

// Longest chunk-size line (size plus extensions) and trailer section accepted.
constexpr std::size_t max_size_line = 4096;
constexpr std::size_t max_trailers = 64 * 1024;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

BodyDecoder::BodyDecoder(Framing framing, uint64_t content_length, std::size_t max_body_bytes)
    : framing_(framing), state_(State::Data), limit_(max_body_bytes) {
  if (framing == Framing::Chunked) state_ = State::Size;
  else if (framing == Framing::Length) {
    remaining_ = content_length;
    if (content_length == 0) state_ = State::Done;
  }
}

bool BodyDecoder::payload(std::string_view piece, const Sink& sink, Status& status) {
  if (piece.size() > limit_ - std::min<uint64_t>(payload_, limit_)) {
    status = Status::TooLarge;
    return false;
  }
  payload_ += piece.size();
  if (!sink(piece)) {
    status = Status::Stopped;
    return false;
  }
  return true;
}

BodyDecoder::Status BodyDecoder::feed(std::string_view bytes, std::size_t& consumed, const Sink& sink) {
  consumed = 0;
  Status status = Status::More;
  if (framing_ == Framing::Length && remaining_ > limit_) return Status::TooLarge;
  if (framing_ == Framing::UntilClose) {
    consumed = bytes.size();
    if (!bytes.empty() && !payload(bytes, sink, status)) return status;
    return Status::More;
  }
  std::size_t i = 0;
  auto fail = [&] {
    consumed = i;
    return Status::Malformed;
  };
  while (i < bytes.size()) {
    const char c = bytes[i];
    switch (state_) {
      case State::Data: {
        const std::size_t take = static_cast<std::size_t>(std::min<uint64_t>(remaining_, bytes.size() - i));
        remaining_ -= take;
        const std::string_view piece = bytes.substr(i, take);
        i += take;
        if (remaining_ == 0) state_ = framing_ == Framing::Length ? State::Done : State::DataCr;
        if (!payload(piece, sink, status)) {
          consumed = i;
          return status;
        }
        if (state_ == State::Done) {
          consumed = i;
          return Status::Done;
        }
        continue;
      }
      case State::Size: {
        if (const int v = hex_value(c); v >= 0) {
          if (++size_digits_ > 15) return fail();  // beyond any sane size; also keeps the shift exact
          remaining_ = remaining_ << 4 | static_cast<uint64_t>(v);
        } else if (size_digits_ == 0) {
          return fail();
        } else if (c == ';' || c == ' ' || c == '\t') {
          state_ = State::Extension;
        } else if (c == '\r') {
          state_ = State::SizeLf;
        } else {
          return fail();
        }
        if (++line_bytes_ > max_size_line) return fail();
        break;
      }
      case State::Extension:
        // Extensions are skipped, not interpreted; a bare LF is no line end.
        if (c == '\r') state_ = State::SizeLf;
        else if (c == '\n') return fail();
        if (++line_bytes_ > max_size_line) return fail();
        break;
      case State::SizeLf:
        if (c != '\n') return fail();
        size_digits_ = line_bytes_ = 0;
        state_ = remaining_ == 0 ? State::TrailerStart : State::Data;
        break;
      case State::DataCr:
        if (c != '\r') return fail();
        state_ = State::DataLf;
        break;
      case State::DataLf:
        if (c != '\n') return fail();
        state_ = State::Size;
        break;
      case State::TrailerStart:
        if (c == '\r') {
          state_ = State::LastLf;
          break;
        }
        state_ = State::Trailer;
        [[fallthrough]];
      case State::Trailer:
        if (c == '\r') state_ = State::TrailerLf;
        else if (c == '\n') return fail();
        if (++line_bytes_ > max_trailers) return fail();
        break;
      case State::TrailerLf:
        if (c != '\n') return fail();
        state_ = State::TrailerStart;
        break;
      case State::LastLf:
        if (c != '\n') return fail();
        state_ = State::Done;
        consumed = i + 1;
        return Status::Done;
      case State::Done:
        consumed = i;
        return Status::Done;
    }
    ++i;
  }
  consumed = i;
  return state_ == State::Done ? Status::Done : Status::More;
}

BodyDecoder::Status BodyDecoder::end_of_input() const {
  if (state_ == State::Done || framing_ == Framing::UntilClose) return Status::Done;
  return Status::More;
}

}  // namespace kgb::llm
