// The HTTP body decoder (chunked, Content-Length, until close) fed whole and
// split at every byte boundary, and its failure modes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kgb/llm/http_body.h"
#include "kgb/llm/sse.h"

using kgb::llm::BodyDecoder;

namespace {

struct Decoded {
  BodyDecoder::Status status = BodyDecoder::Status::More;
  std::string payload;
  std::size_t leftover = 0;  // bytes after the end of the body
};

// Feeds `pieces` in order, as separate reads.
Decoded decode(BodyDecoder& d, const std::vector<std::string>& pieces) {
  Decoded out;
  for (const std::string& piece : pieces) {
    std::size_t used = 0;
    out.status = d.feed(piece, used, [&](std::string_view p) {
      out.payload.append(p);
      return true;
    });
    if (out.status != BodyDecoder::Status::More) {
      out.leftover = piece.size() - used;
      break;
    }
  }
  return out;
}

Decoded chunked(const std::vector<std::string>& pieces, std::size_t limit = 1 << 20) {
  BodyDecoder d(BodyDecoder::Framing::Chunked, 0, limit);
  return decode(d, pieces);
}

// Every way of cutting `wire` in two, plus byte by byte.
std::vector<std::vector<std::string>> splits(const std::string& wire) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t cut = 0; cut <= wire.size(); ++cut) out.push_back({wire.substr(0, cut), wire.substr(cut)});
  std::vector<std::string> bytes;
  for (char c : wire) bytes.emplace_back(1, c);
  out.push_back(bytes);
  return out;
}

}  // namespace

TEST_CASE("chunked body: every split gives the same payload, extensions and trailers skipped") {
  const std::string wire =
      "5\r\nhello\r\n"
      "7;name=value;x=\"q\"\r\n, world\r\n"
      "A \r\n0123456789\r\n"
      "0\r\n"
      "X-Trailer: 1\r\nOther: two\r\n"
      "\r\n";
  for (const auto& pieces : splits(wire)) {
    const Decoded r = chunked(pieces);
    CHECK(r.status == BodyDecoder::Status::Done);
    CHECK(r.payload == "hello, world0123456789");
    CHECK(r.leftover == 0);
  }
}

TEST_CASE("chunked body: bytes after the last chunk are left for the connection") {
  const Decoded r = chunked({"3\r\nabc\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n"});
  CHECK(r.status == BodyDecoder::Status::Done);
  CHECK(r.payload == "abc");
  CHECK(r.leftover == std::string("HTTP/1.1 200 OK\r\n").size());
}

TEST_CASE("chunked body: framing errors are malformed") {
  for (const char* wire : {"g\r\nabc\r\n", "\r\n", "3\nabc\r\n", "3\r\nabcX\r\n", "3\r\nabc\rX", "3;ext\nabc",
                           "1234567890abcdef0\r\n", "0\r\nTrailer\nX"}) {
    CAPTURE(wire);
    CHECK(chunked({wire}).status == BodyDecoder::Status::Malformed);
  }
}

TEST_CASE("chunked body: cut mid-chunk or before the last chunk is not complete") {
  const std::string wire = "5\r\nhello\r\n0\r\n\r\n";
  for (std::size_t cut = 0; cut < wire.size(); ++cut) {
    BodyDecoder d(BodyDecoder::Framing::Chunked, 0, 1 << 20);
    const Decoded r = decode(d, {wire.substr(0, cut)});
    CHECK(r.status == BodyDecoder::Status::More);
    CHECK(d.end_of_input() == BodyDecoder::Status::More);  // the connection closing here is a truncation
  }
}

TEST_CASE("body size limit: chunked, Content-Length and until-close") {
  CHECK(chunked({"5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n"}, 9).status == BodyDecoder::Status::TooLarge);
  CHECK(chunked({"5\r\nhello\r\n4\r\nworl\r\n0\r\n\r\n"}, 9).status == BodyDecoder::Status::Done);
  BodyDecoder length(BodyDecoder::Framing::Length, 10, 9);
  CHECK(decode(length, {"0123456789"}).status == BodyDecoder::Status::TooLarge);
  BodyDecoder until(BodyDecoder::Framing::UntilClose, 0, 4);
  CHECK(decode(until, {"abc", "de"}).status == BodyDecoder::Status::TooLarge);
}

TEST_CASE("Content-Length and until-close framing") {
  BodyDecoder length(BodyDecoder::Framing::Length, 5, 100);
  const Decoded r = decode(length, {"he", "llo", "EXTRA"});
  CHECK(r.status == BodyDecoder::Status::Done);
  CHECK(r.payload == "hello");
  BodyDecoder short_body(BodyDecoder::Framing::Length, 5, 100);
  CHECK(decode(short_body, {"hel"}).status == BodyDecoder::Status::More);
  CHECK(short_body.end_of_input() == BodyDecoder::Status::More);
  BodyDecoder empty(BodyDecoder::Framing::Length, 0, 100);
  CHECK(empty.done());
  BodyDecoder until(BodyDecoder::Framing::UntilClose, 0, 100);
  CHECK(decode(until, {"ab", "cd"}).payload == "abcd");
  CHECK(until.end_of_input() == BodyDecoder::Status::Done);
}

TEST_CASE("the payload sink can stop decoding") {
  BodyDecoder d(BodyDecoder::Framing::Chunked, 0, 100);
  std::size_t used = 0;
  int calls = 0;
  const auto status = d.feed("3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n", used, [&](std::string_view) { return ++calls < 1; });
  CHECK(status == BodyDecoder::Status::Stopped);
  CHECK(calls == 1);
}

TEST_CASE("chunked SSE: events split across chunks and reads, CRLF and LF, comments, multi-line data") {
  // One SSE stream whose events straddle chunk boundaries, sent as chunks.
  const std::string sse =
      ": keep-alive\r\n\r\n"
      "event: first\r\ndata: one\r\ndata: two\r\n\r\n"
      "data: {\"k\":\"v\"}\n\n"
      ":ping\n"
      "data: last\r\n\r\n";
  std::string wire;
  for (std::size_t i = 0; i < sse.size(); i += 7) {
    const std::string piece = sse.substr(i, 7);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    wire += size + piece + "\r\n";
  }
  wire += "0\r\n\r\n";
  for (std::size_t cut = 0; cut <= wire.size(); cut += 3) {
    std::vector<std::string> events;
    kgb::llm::SseParser parser([&](const kgb::llm::SseEvent& e) {
      events.push_back(e.event + "|" + e.data);
      return true;
    });
    BodyDecoder d(BodyDecoder::Framing::Chunked, 0, 1 << 20);
    BodyDecoder::Status status = BodyDecoder::Status::More;
    for (const std::string& piece : {wire.substr(0, cut), wire.substr(cut)}) {
      std::size_t used = 0;
      status = d.feed(piece, used, [&](std::string_view p) { return parser.feed(p); });
      if (status != BodyDecoder::Status::More) break;
    }
    CHECK(status == BodyDecoder::Status::Done);
    CHECK_FALSE(parser.finish());
    REQUIRE(events.size() == 3);
    CHECK(events[0] == "first|one\ntwo");
    CHECK(events[1] == "message|{\"k\":\"v\"}");
    CHECK(events[2] == "message|last");
  }
}
