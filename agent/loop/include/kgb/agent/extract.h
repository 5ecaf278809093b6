// Getting the kernel out of a model's reply. Models wrap code in prose, send
// several blocks (a sketch, then the real thing), forget the closing fence or
// the fences altogether, get cut off at max_tokens, or send garbage. Every
// case ends in an ExtractedCode value; none is an error of the loop.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kgb::agent {

enum class ExtractStatus {
  Ok,         // code found
  NoCode,     // prose only (or nothing at all)
  Truncated,  // the code stops mid-way (an unclosed fence at the end of a cut-off reply, unbalanced braces)
  Binary,     // the reply is not text (NUL bytes, mostly invalid UTF-8)
  TooLarge,   // the code is larger than the limit
};
std::string_view extract_status_name(ExtractStatus status);  // ok, no-code, truncated-code, binary-reply, code-too-large

struct ExtractOptions {
  std::string entry;                 // the entry point's name: a block defining it wins
  std::string language;              // the platform's fence tag ("cpp", "cuda", ...); blocks in other languages lose
  bool reply_was_cut = false;        // the provider said finish_reason = length
  std::size_t max_code_bytes = 256 * 1024;
};

struct ExtractedCode {
  ExtractStatus status = ExtractStatus::NoCode;
  std::string code;
  int blocks = 0;          // fenced blocks seen
  int chosen_block = -1;   // which one (0-based), -1: unfenced or none
  bool unfenced = false;   // taken from a reply without fences
  std::string note;        // why, for the feedback and the record
};

ExtractedCode extract_code(std::string_view reply, const ExtractOptions& options);

}  // namespace kgb::agent
