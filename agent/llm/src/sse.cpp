#include "kgb/llm/sse.h"

namespace kgb::llm {

bool SseParser::feed(std::string_view chunk) {
  if (!bom_checked_) {
    // The BOM may itself be split across chunks; wait for 3 bytes.
    partial_line_.append(chunk);
    if (partial_line_.size() < 3 && std::string_view("\xEF\xBB\xBF").starts_with(partial_line_)) return true;
    bom_checked_ = true;
    std::string buffered;
    buffered.swap(partial_line_);
    std::string_view rest = buffered;
    if (rest.starts_with("\xEF\xBB\xBF")) rest.remove_prefix(3);
    return feed(rest);
  }
  std::size_t pos = 0;
  if (skip_lf_ && !chunk.empty()) {
    if (chunk.front() == '\n') pos = 1;
    skip_lf_ = false;
  }
  while (pos < chunk.size()) {
    // A plain loop: find_first_of with a two-character set calls memchr per byte.
    std::size_t end = pos;
    while (end < chunk.size() && chunk[end] != '\n' && chunk[end] != '\r') ++end;
    if (end == chunk.size()) {
      partial_line_.append(chunk.substr(pos));
      return true;
    }
    bool keep_going;
    if (partial_line_.empty()) {
      keep_going = line(chunk.substr(pos, end - pos));
    } else {
      partial_line_.append(chunk.substr(pos, end - pos));
      std::string whole;
      whole.swap(partial_line_);
      keep_going = line(whole);
    }
    pos = end + 1;
    if (chunk[end] == '\r') {
      if (pos < chunk.size()) {
        if (chunk[pos] == '\n') ++pos;
      } else {
        skip_lf_ = true;
      }
    }
    if (!keep_going) return false;
  }
  return true;
}

bool SseParser::finish() {
  const bool pending = pending_fields_ || !partial_line_.empty();
  partial_line_.clear();
  current_.event.clear();
  current_.data.clear();
  have_data_ = pending_fields_ = false;
  return pending;
}

bool SseParser::line(std::string_view text) {
  if (text.empty()) return dispatch();
  if (text.front() == ':') return true;  // comment, e.g. keep-alive pings
  std::string_view field = text, value;
  if (const auto colon = text.find(':'); colon != std::string_view::npos) {
    field = text.substr(0, colon);
    value = text.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  pending_fields_ = true;
  if (field == "data") {
    if (have_data_) current_.data += '\n';
    current_.data.append(value);
    have_data_ = true;
  } else if (field == "event") {
    current_.event.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) current_.id.assign(value);
  }
  // "retry" and unknown fields are ignored: reconnection is the client's business.
  return true;
}

bool SseParser::dispatch() {
  pending_fields_ = false;
  if (!have_data_) {
    // Per the standard an event without data is not dispatched.
    current_.event.clear();
    return true;
  }
  if (current_.event.empty()) current_.event = "message";
  ++dispatched_;
  const bool keep_going = handler_(current_);
  // Cleared, not replaced, to reuse the buffers; the last event id persists.
  current_.event.clear();
  current_.data.clear();
  have_data_ = false;
  return keep_going;
}

}  // namespace kgb::llm
