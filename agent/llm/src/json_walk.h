// Streaming JSON without a document: a walker that reports each scalar with
// its path. Stream decoders see one small JSON object per event, many
// thousands per call; building a DOM for each (a std::map node per key), or
// even running nlohmann's SAX parser (a fresh lexer and token strings per
// event), cost more than everything else on the client's streaming path.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>


namespace kgb::llm::wire {

struct JsonScalar {
  enum class Kind { Null, Bool, Integer, Float, String };
  Kind kind = Kind::Null;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string_view text;

  bool is_string() const { return kind == Kind::String; }
  bool is_integer() const { return kind == Kind::Integer; }
};

// A strict RFC 8259 parser (the same inputs nlohmann::json::accept takes:
// UTF-8 checked, lone surrogates refused, nothing after the value; except that
// nlohmann stops at a NUL byte as if the input ended there, where the walker
// refuses it) that keeps
// its buffers from one walk to the next. Strings without escapes are reported
// as views into the input, so a typical stream event costs no allocation.
class JsonWalker {
 public:
  virtual ~JsonWalker() = default;

  // Parses `text`, calling scalar()/opened()/closed(); false on malformed JSON.
  bool walk(std::string_view text);

  // The path of the value being reported matches `pattern`: keys literally,
  // "#" for any array index. Matches the whole path, not a prefix.
  bool at(std::initializer_list<std::string_view> pattern) const {
    if (pattern.size() != depth_) return false;
    std::size_t i = 0;
    for (std::string_view part : pattern) {
      const Level& level = levels_[i++];
      if (level.array ? part != "#" : part != level.key) return false;
    }
    return true;
  }
  std::size_t depth() const { return depth_; }
  // The array index at `level` of the current path.
  int64_t index(std::size_t level) const { return levels_[level].index; }

 protected:
  virtual void scalar(const JsonScalar& value) = 0;
  virtual void opened(bool /*array*/) {}  // a container starts at the current path
  virtual void closed(bool /*array*/) {}  // a container ends; the path is its own again

 private:
  struct Level {
    bool array = false;
    std::string_view key;     // objects: the current member's key
    std::string key_storage;  // its decoded text when it had escapes
    int64_t index = 0;        // arrays: the current element
  };

  bool parse_value();
  bool parse_string(std::string_view& out, std::string& storage);
  bool parse_number(JsonScalar& out);
  bool literal(std::string_view word);
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t')) ++pos_;
  }
  void report(const JsonScalar& v) {
    scalar(v);
    if (depth_ > 0 && levels_[depth_ - 1].array) ++levels_[depth_ - 1].index;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::vector<Level> levels_;
  std::size_t depth_ = 0;
  std::string value_storage_;  // decoded text of a string value with escapes
};

}  // namespace kgb::llm::wire
