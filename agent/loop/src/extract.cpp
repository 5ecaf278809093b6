#include "kgb/agent/extract.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace kgb::agent {

std::string_view extract_status_name(ExtractStatus status) {
  switch (status) {
    case ExtractStatus::Ok: return "ok";
    case ExtractStatus::NoCode: return "no-code";
    case ExtractStatus::Truncated: return "truncated-code";
    case ExtractStatus::Binary: return "binary-reply";
    case ExtractStatus::TooLarge: return "code-too-large";
  }
  return "unknown";
}

namespace {

struct Block {
  std::string language;  // lower case, first word of the info string
  std::string code;
  bool closed = false;
};

std::string_view trim_left(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::string_view trim(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// A fence line: at least three backticks or tildes after optional indentation.
bool fence_of(std::string_view line, char& fence_char, size_t& fence_len, std::string& info) {
  std::string_view t = trim_left(line);
  if (t.size() < 3 || (t[0] != '`' && t[0] != '~')) return false;
  size_t n = 0;
  while (n < t.size() && t[n] == t[0]) ++n;
  if (n < 3) return false;
  fence_char = t[0];
  fence_len = n;
  info = std::string(trim(t.substr(n)));
  return true;
}

std::vector<Block> fenced_blocks(std::string_view text) {
  std::vector<Block> blocks;
  const auto lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    char fc;
    size_t fl;
    std::string info;
    if (!fence_of(lines[i], fc, fl, info)) continue;
    if (fc == '`' && info.find('`') != std::string::npos) continue;  // inline code, not a fence
    Block b;
    std::string lang;
    for (char c : info) {
      if (std::isspace(static_cast<unsigned char>(c)) || c == '{' || c == ',') break;
      lang += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    b.language = lang;
    size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      char c2;
      size_t l2;
      std::string info2;
      if (fence_of(lines[j], c2, l2, info2) && c2 == fc && l2 >= fl && info2.empty()) {
        b.closed = true;
        break;
      }
      b.code.append(lines[j]);
      b.code += '\n';
    }
    blocks.push_back(std::move(b));
    i = j;
  }
  return blocks;
}

// Fence tags that name the same language.
std::string canonical_language(const std::string& lang) {
  if (lang == "c++" || lang == "cxx" || lang == "cc" || lang == "hpp" || lang == "hxx" || lang == "h") return "cpp";
  if (lang == "cu" || lang == "cuh") return "cuda";
  if (lang == "cl") return "opencl";
  return lang;
}

bool code_language(const std::string& lang) {
  static const char* const kCode[] = {"", "c", "cpp", "cuda", "hip", "opencl", "objc", "metal"};
  const std::string c = canonical_language(lang);
  return std::find_if(std::begin(kCode), std::end(kCode), [&](const char* k) { return c == k; }) != std::end(kCode);
}

// Blanks comments and literals so braces and names are counted only in code.
std::string code_only(std::string_view s) {
  std::string out(s);
  enum { Code, Line, Block, Str, Chr } st = Code;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    const char n = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (st) {
      case Code:
        if (c == '/' && n == '/') st = Line, out[i] = ' ';
        else if (c == '/' && n == '*') st = Block, out[i] = ' ';
        else if (c == '"') st = Str;
        else if (c == '\'') st = Chr;
        break;
      case Line:
        if (c == '\n') st = Code;
        else out[i] = ' ';
        break;
      case Block:
        if (c == '*' && n == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          st = Code;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case Str:
      case Chr:
        if (c == '\\' && n) {
          out[i] = ' ';
          if (n != '\n') out[i + 1] = ' ';
          ++i;
        } else if ((st == Str && c == '"') || (st == Chr && c == '\'')) {
          st = Code;
        } else if (c == '\n') {
          st = Code;  // an unterminated literal ends at the line
        } else {
          out[i] = ' ';
        }
        break;
    }
  }
  return out;
}

int brace_balance(std::string_view code) {
  const std::string c = code_only(code);
  int depth = 0;
  for (char ch : c) {
    if (ch == '{') ++depth;
    else if (ch == '}') --depth;
  }
  return depth;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The entry's name followed by a parameter list and a body.
bool defines_entry(std::string_view code, const std::string& entry) {
  if (entry.empty()) return false;
  const std::string c = code_only(code);
  for (size_t pos = c.find(entry); pos != std::string::npos; pos = c.find(entry, pos + 1)) {
    if (pos > 0 && is_ident(c[pos - 1])) continue;
    size_t i = pos + entry.size();
    if (i < c.size() && is_ident(c[i])) continue;
    while (i < c.size() && std::isspace(static_cast<unsigned char>(c[i]))) ++i;
    if (i >= c.size() || c[i] != '(') continue;
    int depth = 0;
    for (; i < c.size(); ++i) {
      if (c[i] == '(') ++depth;
      else if (c[i] == ')' && --depth == 0) break;
    }
    if (i >= c.size()) continue;
    ++i;
    while (i < c.size() && (std::isspace(static_cast<unsigned char>(c[i])) || is_ident(c[i]))) ++i;  // noexcept, etc.
    if (i < c.size() && c[i] == '{') return true;
  }
  return false;
}

bool mentions(std::string_view code, const std::string& word) {
  return !word.empty() && code.find(word) != std::string_view::npos;
}

bool looks_binary(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return true;
  size_t bad = 0, controls = 0;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f') ++controls;
      ++i;
      continue;
    }
    size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= text.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok) {
      i += len;
    } else {
      ++bad;
      ++i;
    }
  }
  const size_t noise = bad + controls;
  return noise > 16 && noise * 50 > text.size();  // more than 2% noise
}

// A reply without fences: the code starts at the first preprocessor line or
// at the entry's definition and ends at the last line that closes something.
std::string unfenced_code(std::string_view text, const std::string& entry) {
  const auto lines = split_lines(text);
  size_t start = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = trim_left(lines[i]);
    if (t.rfind("#include", 0) == 0 || t.rfind("#pragma", 0) == 0 || t.rfind("#define", 0) == 0) {
      start = i;
      break;
    }
  }
  if (start == lines.size()) {
    for (size_t i = 0; i < lines.size(); ++i)
      if (mentions(lines[i], entry)) {
        start = i;
        // Keep an `extern "C"` or a return type on the line before.
        if (i > 0) {
          std::string_view prev = trim(lines[i - 1]);
          if (prev.rfind("extern", 0) == 0 || prev == "int" || prev.rfind("template", 0) == 0) start = i - 1;
        }
        break;
      }
  }
  if (start == lines.size()) return {};
  size_t end = start;
  for (size_t i = start; i < lines.size(); ++i) {
    std::string_view t = trim(lines[i]);
    if (!t.empty() && (t.back() == '}' || t.back() == ';' || t.front() == '#' || t.rfind("//", 0) == 0)) end = i;
  }
  std::string code;
  for (size_t i = start; i <= end && i < lines.size(); ++i) {
    code.append(lines[i]);
    code += '\n';
  }
  return code;
}

}  // namespace

ExtractedCode extract_code(std::string_view reply, const ExtractOptions& options) {
  ExtractedCode out;
  if (trim(reply).empty()) {
    out.note = "the reply is empty";
    return out;
  }
  if (looks_binary(reply)) {
    out.status = ExtractStatus::Binary;
    out.note = "the reply is not text (NUL bytes or invalid UTF-8)";
    return out;
  }
  auto blocks = fenced_blocks(reply);
  out.blocks = static_cast<int>(blocks.size());
  int chosen = -1;
  if (!blocks.empty()) {
    // Rank: defines the entry > mentions it > any code block; the platform's
    // own language breaks ties, then the later block (the final version).
    int best_rank = -1;
    for (int i = 0; i < static_cast<int>(blocks.size()); ++i) {
      const Block& b = blocks[i];
      if (!code_language(b.language) && canonical_language(b.language) != canonical_language(options.language)) continue;
      if (trim(b.code).empty()) continue;
      int rank = defines_entry(b.code, options.entry) ? 4 : mentions(b.code, options.entry) ? 2 : 0;
      if (!options.language.empty() && canonical_language(b.language) == canonical_language(options.language)) rank += 1;
      if (rank >= best_rank) {
        // Among blocks that define nothing, the larger one wins.
        if (rank == best_rank && rank < 2 && b.code.size() < blocks[chosen].code.size()) continue;
        best_rank = rank;
        chosen = i;
      }
    }
    if (chosen < 0) {
      out.note = "the reply has " + std::to_string(blocks.size()) + " fenced block(s) but none holds " +
                 (options.language.empty() ? std::string("source code") : options.language + " code");
      return out;
    }
    out.chosen_block = chosen;
    out.code = std::move(blocks[chosen].code);
    const bool closed = blocks[chosen].closed;
    if (!closed && (options.reply_was_cut || brace_balance(out.code) > 0)) {
      out.status = ExtractStatus::Truncated;
      out.note = options.reply_was_cut ? "the reply was cut off at the output-token limit inside the code block"
                                       : "the code block is not closed and its braces do not balance";
      return out;
    }
    if (!closed) out.note = "the closing fence is missing";
  } else {
    out.code = unfenced_code(reply, options.entry);
    if (out.code.empty() || (!defines_entry(out.code, options.entry) && out.code.find("#include") == std::string::npos)) {
      out.code.clear();
      out.note = "the reply holds no fenced code block and no recognisable source code";
      return out;
    }
    out.unfenced = true;
    out.note = "code taken from a reply without fences";
    if (brace_balance(out.code) > 0) {
      out.status = ExtractStatus::Truncated;
      out.note = options.reply_was_cut ? "the reply was cut off at the output-token limit" : "the code's braces do not balance";
      return out;
    }
  }
  if (out.code.size() > options.max_code_bytes) {
    out.status = ExtractStatus::TooLarge;
    out.note = "the code has " + std::to_string(out.code.size()) + " bytes, more than the limit of " +
               std::to_string(options.max_code_bytes);
    return out;
  }
  if (options.reply_was_cut && brace_balance(out.code) > 0) {
    out.status = ExtractStatus::Truncated;
    out.note = "the reply was cut off at the output-token limit";
    return out;
  }
  out.status = ExtractStatus::Ok;
  return out;
}

}  // namespace kgb::agent
