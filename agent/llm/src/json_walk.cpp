#include "json_walk.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace kgb::llm::wire {

namespace {

// Deeper input is refused: no provider event nests anywhere near this, and
// the level table is sized once so key views into it never move.
constexpr std::size_t max_depth = 256;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | cp >> 6);
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | cp >> 12);
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | cp >> 18);
    out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Length of the well-formed UTF-8 sequence starting at text[pos] (a byte
// >= 0x80), or 0 when it is not one (overlong forms and surrogates refused).
std::size_t utf8_sequence(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) -> unsigned { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u; };
  const auto cont = [&](std::size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) { return byte(i) >= lo && byte(i) <= hi; };
  const unsigned b = byte(pos);
  if (b >= 0xC2 && b <= 0xDF) return cont(pos + 1) ? 2 : 0;
  if (b == 0xE0) return cont(pos + 1, 0xA0) && cont(pos + 2) ? 3 : 0;
  if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) return cont(pos + 1) && cont(pos + 2) ? 3 : 0;
  if (b == 0xED) return cont(pos + 1, 0x80, 0x9F) && cont(pos + 2) ? 3 : 0;
  if (b == 0xF0) return cont(pos + 1, 0x90) && cont(pos + 2) && cont(pos + 3) ? 4 : 0;
  if (b >= 0xF1 && b <= 0xF3) return cont(pos + 1) && cont(pos + 2) && cont(pos + 3) ? 4 : 0;
  if (b == 0xF4) return cont(pos + 1, 0x80, 0x8F) && cont(pos + 2) && cont(pos + 3) ? 4 : 0;
  return 0;
}

}  // namespace

bool JsonWalker::walk(std::string_view text) {
  if (levels_.empty()) levels_.resize(max_depth);
  text_ = text;
  pos_ = 0;
  depth_ = 0;
  if (!parse_value()) return false;
  skip_space();
  return pos_ == text_.size();
}

bool JsonWalker::literal(std::string_view word) {
  if (text_.substr(pos_, word.size()) != word) return false;
  pos_ += word.size();
  return true;
}

bool JsonWalker::parse_value() {
  skip_space();
  if (pos_ >= text_.size()) return false;
  const char c = text_[pos_];
  if (c == '{' || c == '[') {
    const bool array = c == '[';
    const char close = array ? ']' : '}';
    if (depth_ >= max_depth) return false;
    opened(array);
    Level& level = levels_[depth_++];
    level.array = array;
    level.index = 0;
    level.key = {};
    ++pos_;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == close) {
      ++pos_;
    } else {
      for (;;) {
        if (!array) {
          skip_space();
          if (pos_ >= text_.size() || text_[pos_] != '"') return false;
          if (!parse_string(level.key, level.key_storage)) return false;
          skip_space();
          if (pos_ >= text_.size() || text_[pos_] != ':') return false;
          ++pos_;
        }
        if (!parse_value()) return false;
        skip_space();
        if (pos_ >= text_.size()) return false;
        if (text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (text_[pos_] != close) return false;
        ++pos_;
        break;
      }
    }
    --depth_;
    closed(array);
    if (depth_ > 0 && levels_[depth_ - 1].array) ++levels_[depth_ - 1].index;
    return true;
  }
  JsonScalar v;
  if (c == '"') {
    v.kind = JsonScalar::Kind::String;
    if (!parse_string(v.text, value_storage_)) return false;
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    if (!parse_number(v)) return false;
  } else if (literal("true")) {
    v.kind = JsonScalar::Kind::Bool;
    v.boolean = true;
  } else if (literal("false")) {
    v.kind = JsonScalar::Kind::Bool;
  } else if (!literal("null")) {
    return false;
  }
  report(v);
  return true;
}

bool JsonWalker::parse_string(std::string_view& out, std::string& storage) {
  ++pos_;  // the opening quote
  const std::size_t start = pos_;
  // Fast path: no escape, the text is a view of the input.
  while (pos_ < text_.size()) {
    const auto c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      out = text_.substr(start, pos_ - start);
      ++pos_;
      return true;
    }
    if (c == '\\') break;
    if (c < 0x20) return false;
    if (c < 0x80) {
      ++pos_;
    } else {
      const std::size_t n = utf8_sequence(text_, pos_);
      if (n == 0) return false;
      pos_ += n;
    }
  }
  if (pos_ >= text_.size()) return false;
  storage.assign(text_.substr(start, pos_ - start));
  auto read_hex4 = [&](uint32_t& cp) {
    if (pos_ + 4 > text_.size()) return false;
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = hex_digit(text_[pos_ + i]);
      if (d < 0) return false;
      cp = cp << 4 | static_cast<uint32_t>(d);
    }
    pos_ += 4;
    return true;
  };
  while (pos_ < text_.size()) {
    const auto c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      out = storage;
      ++pos_;
      return true;
    }
    if (c < 0x20) return false;
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence(text_, pos_);
      if (n == 0) return false;
      storage.append(text_.substr(pos_, n));
      pos_ += n;
      continue;
    }
    if (c != '\\') {
      storage += static_cast<char>(c);
      ++pos_;
      continue;
    }
    if (++pos_ >= text_.size()) return false;
    const char e = text_[pos_++];
    switch (e) {
      case '"': storage += '"'; break;
      case '\\': storage += '\\'; break;
      case '/': storage += '/'; break;
      case 'b': storage += '\b'; break;
      case 'f': storage += '\f'; break;
      case 'n': storage += '\n'; break;
      case 'r': storage += '\r'; break;
      case 't': storage += '\t'; break;
      case 'u': {
        uint32_t cp = 0;
        if (!read_hex4(cp)) return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate alone
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          // A high surrogate must be followed by its low half.
          uint32_t low = 0;
          if (!literal("\\u") || !read_hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(storage, cp);
        break;
      }
      default: return false;
    }
  }
  return false;
}

bool JsonWalker::parse_number(JsonScalar& out) {
  const std::size_t start = pos_;
  auto digits = [&] {
    const std::size_t from = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    return pos_ > from;
  };
  if (text_[pos_] == '-') ++pos_;
  if (pos_ >= text_.size()) return false;
  if (text_[pos_] == '0') ++pos_;
  else if (!digits()) return false;
  bool integral = true;
  if (pos_ < text_.size() && text_[pos_] == '.') {
    ++pos_;
    if (!digits()) return false;
    integral = false;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    if (!digits()) return false;
    integral = false;
  }
  const char* first = text_.data() + start;
  const char* last = text_.data() + pos_;
  if (integral) {
    int64_t value = 0;
    if (std::from_chars(first, last, value).ec == std::errc{}) {
      out.kind = JsonScalar::Kind::Integer;
      out.integer = value;
      out.number = static_cast<double>(value);
      return true;
    }
    uint64_t big = 0;
    if (*first != '-' && std::from_chars(first, last, big).ec == std::errc{}) {
      out.kind = JsonScalar::Kind::Integer;
      out.integer = static_cast<int64_t>(big);
      out.number = static_cast<double>(big);
      return true;
    }
  }
  // strtod, not from_chars: it rounds underflow to zero rather than failing.
  const std::string copy(first, last);
  const double value = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(value)) return false;  // overflow: refused, as nlohmann does
  out.kind = JsonScalar::Kind::Float;
  out.number = value;
  return true;
}

}  // namespace kgb::llm::wire
