#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kgb/llm/sse.h"

using kgb::llm::SseEvent;
using kgb::llm::SseParser;

namespace {

std::vector<SseEvent> parse_in_pieces(const std::string& stream, std::size_t piece) {
  std::vector<SseEvent> events;
  SseParser parser([&](const SseEvent& e) {
    events.push_back(e);
    return true;
  });
  for (std::size_t i = 0; i < stream.size(); i += piece) parser.feed(std::string_view(stream).substr(i, piece));
  parser.finish();
  return events;
}

}  // namespace

TEST_CASE("sse: events, names, multi-line data and comments survive any chunking") {
  const std::string stream =
      "\xEF\xBB\xBF: keep-alive comment\r\n"
      "event: message_start\r\n"
      "data: {\"a\":1}\r\n\r\n"
      "data: line one\n"
      "data: line two\n"
      "id: 7\n\n"
      "data:no-space\r\r"
      "event: ping\ndata: {}\n\n"
      "data: [DONE]\n\n";
  for (std::size_t piece : {1u, 2u, 3u, 5u, 7u, 64u, 4096u}) {
    CAPTURE(piece);
    auto events = parse_in_pieces(stream, piece);
    REQUIRE(events.size() == 5);
    CHECK(events[0].event == "message_start");
    CHECK(events[0].data == "{\"a\":1}");
    CHECK(events[1].event == "message");
    CHECK(events[1].data == "line one\nline two");
    CHECK(events[1].id == "7");
    CHECK(events[2].data == "no-space");
    CHECK(events[2].id == "7");  // the last event id persists
    CHECK(events[3].event == "ping");
    CHECK(events[4].data == "[DONE]");
  }
}

TEST_CASE("sse: an event without its blank line is not dispatched, and finish reports it") {
  std::vector<SseEvent> events;
  SseParser parser([&](const SseEvent& e) {
    events.push_back(e);
    return true;
  });
  parser.feed("data: complete\n\ndata: partial");
  CHECK(events.size() == 1);
  CHECK(parser.finish());
  CHECK(events.size() == 1);
  CHECK_FALSE(parser.finish());
}

TEST_CASE("sse: the handler can stop the parse") {
  int seen = 0;
  SseParser parser([&](const SseEvent&) { return ++seen < 2; });
  CHECK_FALSE(parser.feed("data: 1\n\ndata: 2\n\ndata: 3\n\n"));
  CHECK(seen == 2);
}

TEST_CASE("sse: events without data and unknown fields are ignored") {
  auto events = parse_in_pieces("event: lonely\n\nretry: 100\nfoo: bar\ndata: x\n\n", 4);
  REQUIRE(events.size() == 1);
  CHECK(events[0].event == "message");
  CHECK(events[0].data == "x");
}
