#include "kgb/oracle/prompt.h"

#include <cctype>

namespace kgb::oracle {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// Drops Markdown decoration around a label or a value: "**", "`", "- ", "> ", "#".
std::string_view strip_decoration(std::string_view text) {
  text = trim(text);
  bool changed = true;
  while (changed && !text.empty()) {
    changed = false;
    for (std::string_view mark : {"**", "__", "`", "*", "_", "- ", "> ", "#"}) {
      if (text.starts_with(mark)) {
        text.remove_prefix(mark.size());
        text = trim(text);
        changed = true;
      }
      if (text.ends_with(mark) && mark != "- " && mark != "> ") {
        text.remove_suffix(mark.size());
        text = trim(text);
        changed = true;
      }
    }
  }
  return text;
}

// The first whitespace-delimited word of a value ("aten/softmax (f32)" -> "aten/softmax").
std::string first_word(std::string_view value) {
  value = strip_decoration(value);
  std::size_t end = 0;
  while (end < value.size() && !std::isspace(static_cast<unsigned char>(value[end]))) ++end;
  return std::string(strip_decoration(value.substr(0, end)));
}

}  // namespace

void scan_prompt(std::string_view text, PromptFacts& facts) {
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    line = strip_decoration(line);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view label = strip_decoration(line.substr(0, colon));
    std::string_view value = line.substr(colon + 1);
    if (label == "Task" || label == "task") {
      if (std::string word = first_word(value); !word.empty()) facts.task_id = std::move(word);
    } else if (label == "Platform" || label == "platform") {
      if (std::string word = first_word(value); !word.empty()) facts.platform = std::move(word);
    }
  }
}

PromptFacts parse_prompt(std::string_view text) {
  PromptFacts facts;
  scan_prompt(text, facts);
  return facts;
}

int omitted_attempts(std::string_view text) {
  int found = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = trim(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    if (!line.starts_with("[") || line.find("left out") == std::string_view::npos) continue;
    line.remove_prefix(1);
    int n = 0;
    std::size_t digits = 0;
    while (digits < line.size() && digits < 6 && std::isdigit(static_cast<unsigned char>(line[digits])))
      n = n * 10 + (line[digits++] - '0');
    if (digits > 0 && line.substr(digits).starts_with(" earlier attempt")) found = n;
  }
  return found;
}

int64_t estimate_tokens(std::string_view text) { return static_cast<int64_t>((text.size() + 3) / 4); }

std::string extract_code_block(std::string_view reply) {
  const auto open = reply.find("```");
  if (open == std::string_view::npos) return {};
  const auto line_end = reply.find('\n', open);
  if (line_end == std::string_view::npos) return {};
  const auto close = reply.find("\n```", line_end);
  if (close == std::string_view::npos) return std::string(reply.substr(line_end + 1));
  return std::string(reply.substr(line_end + 1, close - line_end));
}

}  // namespace kgb::oracle
