// The streaming JSON walker: values and paths exact, escapes decoded, and the
// same inputs accepted and refused as nlohmann::json::accept (checked on
// hand-picked cases and on many single-byte mutations of real events).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_walk.h"

namespace {

// Records "path=value" for every scalar, and container open/close marks.
class Recorder final : public kgb::llm::wire::JsonWalker {
 public:
  std::vector<std::string> seen;
  std::string last_text;

 protected:
  void scalar(const kgb::llm::wire::JsonScalar& v) override {
    std::string value;
    switch (v.kind) {
      case kgb::llm::wire::JsonScalar::Kind::Null: value = "null"; break;
      case kgb::llm::wire::JsonScalar::Kind::Bool: value = v.boolean ? "true" : "false"; break;
      case kgb::llm::wire::JsonScalar::Kind::Integer: value = "i" + std::to_string(v.integer); break;
      case kgb::llm::wire::JsonScalar::Kind::Float: value = "f" + std::to_string(v.number); break;
      case kgb::llm::wire::JsonScalar::Kind::String: value = "s" + std::string(v.text); last_text = v.text; break;
    }
    seen.push_back(std::to_string(depth()) + ":" + value);
  }
  void opened(bool array) override { seen.push_back(array ? "[" : "{"); }
  void closed(bool array) override { seen.push_back(array ? "]" : "}"); }
};

// Matches a path while a scalar is reported.
class PathProbe final : public kgb::llm::wire::JsonWalker {
 public:
  std::string content;
  int64_t index = -1;

 protected:
  void scalar(const kgb::llm::wire::JsonScalar& v) override {
    if (at({"choices", "#", "delta", "content"})) content = v.text;
    if (at({"choices", "#", "index"})) index = v.integer;
  }
};

const char* const samples[] = {
    R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"int x = 1;\n"},"finish_reason":null}]})",
    R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"compile","arguments":"{\"a\":1}"}}]}}],"usage":null})",
    R"({"usage":{"prompt_tokens":12,"completion_tokens":3400,"prompt_tokens_details":{"cached_tokens":0},"estimated":true},"x":[1.5e3,-0.25,1E-2,true,false,null,[],{}]})",
    R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t"}})",
    R"({"error":{"type":"server_error","code":"x","message":"boom"}})",
    "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", 0, -0, 123456789012345678901234567890, 18446744073709551615]",
};

}  // namespace

TEST_CASE("json walker: scalars with paths, containers, integers and floats") {
  Recorder r;
  REQUIRE(r.walk(R"( {"a": [1, -2, 3.5, "x"], "b": {"c": null, "d": true}} )"));
  const std::vector<std::string> expected = {"{", "[", "2:i1", "2:i-2", "2:f3.500000", "2:sx", "]",
                                             "{", "2:null", "2:true", "}", "}"};
  CHECK(r.seen == expected);
}

TEST_CASE("json walker: escapes, \\u escapes and surrogate pairs decode to UTF-8") {
  Recorder r;
  REQUIRE(r.walk(samples[3]));
  CHECK(r.last_text == "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\" \\ / \b\f\n\r\t");
  REQUIRE(r.walk(R"(["\u0041\u00DF\u6771\uD800\uDC00"])"));
  CHECK(r.last_text == "A\xc3\x9f\xe6\x9d\xb1\xf0\x90\x80\x80");
  for (const char* bad : {R"(["\uD800"])", R"(["\uDC00"])", R"(["\uD800\u0041"])", R"(["\uD83D\uD83D"])", R"(["\u12"])",
                          R"(["\x"])"}) {
    CAPTURE(bad);
    CHECK_FALSE(r.walk(bad));
  }
}

TEST_CASE("json walker: the path of a delta inside choices") {
  PathProbe p;
  REQUIRE(p.walk(samples[0]));
  CHECK(p.content == "int x = 1;\n");
  CHECK(p.index == 0);
  // Keys with escapes still match their decoded text.
  PathProbe q;
  REQUIRE(q.walk(R"({"ch\u006fices":[{"delta":{"cont\u0065nt":"hi"}}]})"));
  CHECK(q.content == "hi");
}

TEST_CASE("json walker: accepts and refuses what nlohmann does") {
  const char* const cases[] = {
      "", " ", "{", "}", "{}", "[]", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[01]", "[-]", "[1.]", "[.5]", "[1e]",
      "[1e+]", "[-0.0e-0]", "[1e400]", "[1e-400]", "[tru]", "[nul]", "[true false]", "{} {}", "{}x", "\"\\u00\"",
      "\"a\tb\"", "\"\x7f\"", "\"\xc0\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"", "\"\xff\"",
      "[\"a\"\"b\"]", "{\"a\":{\"b\":[{\"c\":[]}]}}", "123", "-9223372036854775809", "\"\\/\"", "[1,2", "[\"",
  };
  Recorder r;
  for (const char* text : cases) {
    CAPTURE(text);
    CHECK(r.walk(text) == nlohmann::json::accept(text));
  }
  for (const char* text : samples) {
    CAPTURE(text);
    CHECK(r.walk(text));
    CHECK(nlohmann::json::accept(text));
  }
}

TEST_CASE("json walker: single-byte mutations of stream events agree with nlohmann") {
  const std::string alphabet = "{}[]\":,\\u0123456789.eE+-tfnl aA\t\n\x01\x7f\x80\xbf\xc3\xe2\xed\xf0\xff";
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  Recorder r;
  int disagreements = 0, refused = 0;
  for (int round = 0; round < 30000; ++round) {
    std::string text = samples[next() % std::size(samples)];
    const int edits = 1 + static_cast<int>(next() % 2);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = next() % text.size();
      const char c = alphabet[next() % alphabet.size()];
      switch (next() % 3) {
        case 0: text[at] = c; break;
        case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        default: text.erase(at, 1); break;
      }
    }
    const bool mine = r.walk(text);
    const bool reference = nlohmann::json::accept(text);
    refused += !reference;
    if (mine != reference) {
      ++disagreements;
      CAPTURE(text);
      CHECK(mine == reference);
      if (disagreements > 5) break;
    }
  }
  CHECK(disagreements == 0);
  CHECK(refused > 10000);  // the mutations do exercise the refusals
}
