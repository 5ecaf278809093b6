// Streaming JSON without a document: a SAX walker that reports each scalar
// with its path. Stream decoders see one small JSON object per event, many
// thousands per call; building a DOM for each (a std::map node per key) cost
// more than everything else on the client's streaming path.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

class JsonWalker : public nlohmann::json_sax<nlohmann::json> {
 public:
  // Parses `text`, calling scalar()/opened()/closed(); false on malformed JSON.
  bool walk(std::string_view text) {
    depth_ = 0;
    failed_ = false;
    const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), this, nlohmann::json::input_format_t::json, true);
    return ok && !failed_ && depth_ == 0;
  }

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

 // The SAX interface nlohmann's parser calls; not for callers.
  bool null() override { return value({}), true; }
  bool boolean(bool b) override {
    JsonScalar v;
    v.kind = JsonScalar::Kind::Bool;
    v.boolean = b;
    return value(v), true;
  }
  bool number_integer(number_integer_t n) override {
    JsonScalar v;
    v.kind = JsonScalar::Kind::Integer;
    v.integer = n;
    v.number = static_cast<double>(n);
    return value(v), true;
  }
  bool number_unsigned(number_unsigned_t n) override {
    JsonScalar v;
    v.kind = JsonScalar::Kind::Integer;
    v.integer = static_cast<int64_t>(n);
    v.number = static_cast<double>(n);
    return value(v), true;
  }
  bool number_float(number_float_t n, const string_t&) override {
    JsonScalar v;
    v.kind = JsonScalar::Kind::Float;
    v.number = n;
    return value(v), true;
  }
  bool string(string_t& s) override {
    JsonScalar v;
    v.kind = JsonScalar::Kind::String;
    v.text = s;
    return value(v), true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return push(false), true; }
  bool key(string_t& k) override {
    levels_[depth_ - 1].key = k;
    return true;
  }
  bool end_object() override { return pop(false), !failed_; }
  bool start_array(std::size_t) override { return push(true), true; }
  bool end_array() override { return pop(true), !failed_; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    failed_ = true;
    return false;
  }

 protected:
  virtual void scalar(const JsonScalar& value) = 0;
  virtual void opened(bool /*array*/) {}  // a container starts at the current path
  virtual void closed(bool /*array*/) {}  // a container ends; the path is its own again

 private:
  struct Level {
    bool array = false;
    std::string key;   // objects: the current member's key
    int64_t index = 0; // arrays: the current element
  };

  void value(const JsonScalar& v) {
    scalar(v);
    advance();
  }
  void advance() {
    if (depth_ > 0 && levels_[depth_ - 1].array) ++levels_[depth_ - 1].index;
  }
  void push(bool array) {
    opened(array);
    if (levels_.size() <= depth_) levels_.emplace_back();
    Level& level = levels_[depth_++];
    level.array = array;
    level.index = 0;
    level.key.clear();
  }
  void pop(bool array) {
    if (depth_ == 0) {
      failed_ = true;
      return;
    }
    --depth_;
    closed(array);
    advance();
  }

  std::vector<Level> levels_;
  std::size_t depth_ = 0;
  bool failed_ = false;
};

}  // namespace kgb::llm::wire
