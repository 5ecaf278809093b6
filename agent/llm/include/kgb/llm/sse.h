// Server-sent events (the WHATWG event-stream format) parsed incrementally from
// arbitrary byte chunks: CR, LF and CRLF line ends (also split across chunks),
// multi-line data, comments, an initial byte-order mark.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace kgb::llm {

struct SseEvent {
  std::string event;  // "message" when the stream gave no event name
  std::string data;   // data lines joined by '\n'
  std::string id;
};

class SseParser {
 public:
  // Returns false to stop: feed() then returns without parsing further.
  using Handler = std::function<bool(const SseEvent&)>;

  explicit SseParser(Handler handler) : handler_(std::move(handler)) {}

  // Parses a chunk; returns false if the handler asked to stop.
  bool feed(std::string_view chunk);
  // End of input: an event without its terminating blank line is discarded
  // (the standard's rule); returns whether such a partial event was pending.
  bool finish();

  std::size_t events_dispatched() const { return dispatched_; }

 private:
  bool line(std::string_view text);
  bool dispatch();

  Handler handler_;
  std::string partial_line_;
  bool skip_lf_ = false;    // previous chunk ended in CR
  bool bom_checked_ = false;
  bool have_data_ = false;
  bool pending_fields_ = false;
  SseEvent current_;
  std::size_t dispatched_ = 0;
};

}  // namespace kgb::llm
