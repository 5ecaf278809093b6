// How the oracle reads a kernel-generation prompt and counts tokens.
//
// Prompt convention: a line "Task: <task id>" and a line "Platform: <name>"
// somewhere in the user messages (leading Markdown emphasis and list marks
// are tolerated: "**Task:** aten/softmax", "- Platform: cpu-x86_64"). The
// last occurrence wins, so a follow-up message may switch task.
//
// A conversation whose earlier exchanges were dropped to keep it short may
// say so in a line "[N earlier attempts ... left out ...]"; the oracle counts
// those attempts as if they were still there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kgb::oracle {

struct PromptFacts {
  std::string task_id;
  std::string platform;
};

// Scans `text` and updates `facts` with any Task:/Platform: lines found.
void scan_prompt(std::string_view text, PromptFacts& facts);
PromptFacts parse_prompt(std::string_view text);

// The N of a line "[N earlier attempts ... left out ...]" in `text`, else 0.
int omitted_attempts(std::string_view text);

// The oracle's token estimate: one token per 4 bytes, rounded up. Reported
// counts are labelled as estimates.
int64_t estimate_tokens(std::string_view text);

// Extracts the fenced code block of a reply (the first ``` block), or empty.
std::string extract_code_block(std::string_view reply);

}  // namespace kgb::oracle
