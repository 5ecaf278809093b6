#include "input_check.h"

#include <string>

namespace kgb::lint::detail {
namespace {

LintFinding input_finding(const LintRequest& request, std::string rule, std::string message, std::string hint) {
  LintFinding f;
  f.rule = std::move(rule);
  f.layer = "L1";
  f.severity = "reject";
  f.message = std::move(message);
  f.fix_hint = std::move(hint);
  f.file = request.file_name;
  f.location = request.file_name;
  return f;
}

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not valid UTF-8.
size_t utf8_sequence_length(const std::string& s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t length = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) length = 2;
  else if (c >= 0xE0 && c <= 0xEF) length = 3;
  else if (c >= 0xF0 && c <= 0xF4) length = 4;
  else return 0;
  if (i + length > s.size()) return 0;
  for (size_t k = 1; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

}  // namespace

std::optional<LintFinding> check_input(const LintRequest& request) {
  const std::string& s = request.source;
  if (s.size() > request.size_limit_bytes) {
    return input_finding(request, "lint-input-too-large",
                         "the source has " + std::to_string(s.size()) + " bytes; the limit is " +
                             std::to_string(request.size_limit_bytes),
                         "submit one self-contained kernel source; generated tables belong in code that computes them");
  }
  // Source text is UTF-8 with ordinary whitespace. NUL bytes never occur in it;
  // a few stray bytes (a Latin-1 comment) are tolerated, binary data is not.
  size_t suspicious = 0;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0) {
      return input_finding(request, "lint-input-not-text",
                           "the source contains a NUL byte at offset " + std::to_string(i) + "; it is not text",
                           "send the kernel source code as plain UTF-8 text");
    }
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') {
      ++suspicious;
      ++i;
      continue;
    }
    const size_t length = utf8_sequence_length(s, i);
    if (length == 0) {
      ++suspicious;
      ++i;
    } else {
      i += length;
    }
  }
  if (suspicious > 8 + s.size() / 1000) {
    return input_finding(request, "lint-input-not-text",
                         "the source has " + std::to_string(suspicious) +
                             " control bytes or invalid UTF-8 sequences; it is not text",
                         "send the kernel source code as plain UTF-8 text");
  }
  return std::nullopt;
}

}  // namespace kgb::lint::detail
