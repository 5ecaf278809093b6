#include "rules/unlinted_code.h"

#include "rules/rules.h"
#include "rules/source_lines.h"

namespace kgb::lint::detail {
namespace {

const char* const kWhy =
    " that no lint pass parsed: the compiler took a preprocessor branch Clang did not (compiler-identifying macros "
    "such as __GNUC__, __clang__, __NVCC__, __CUDACC_VER_MAJOR__; __OPTIMIZE__ and other flag macros; "
    "__has_include, __has_builtin; _OPENMP versions), or Clang stopped reading the file before it";
const char* const kHint =
    "make every branch the compiler takes visible to the lint: test only macros both see alike (__CUDA_ARCH__, "
    "_OPENMP, __AVX2__ and other target features), or remove the branch";

// The first offset of `line` that is not a blank.
size_t content_offset(const std::string& source, const SourceLines& lines, int line) {
  size_t at = lines.offset(line);
  while (at < source.size() && (source[at] == ' ' || source[at] == '\t')) ++at;
  return at;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

void check_unlinted_code(const std::string& source, const std::vector<CompiledPass>& compiled,
                         const std::vector<SkippedRange>& skipped_by_all, const std::vector<std::string>& lint_passes,
                         const RuleSetup& setup, FindingSink& sink) {
  const RuleEntry* entry = find_rule("unlinted-code");
  if (!entry || skipped_by_all.empty()) return;
  const std::string severity = rule_severity(*entry, setup);
  if (severity == "off") return;
  const SourceLines lines(source);
  for (const CompiledPass& pass : compiled) {
    // One finding per missed range: its first compiled line, and how many follow.
    for (const SkippedRange& range : skipped_by_all) {
      int first = 0, last = 0, count = 0;
      for (int line : pass.lines) {
        if (line < 1 || line > lines.count()) continue;
        const size_t at = content_offset(source, lines, line);
        if (at < range.begin || at >= range.end) continue;
        if (!first) first = line;
        last = line;
        ++count;
      }
      if (!first) continue;
      LintFinding f;
      f.rule = entry->info.name;
      f.layer = "L1";
      f.severity = severity;
      f.message = "`" + pass.name + "` compiles line " + std::to_string(first) +
                  (count > 1 ? " (and " + std::to_string(count - 1) + " more up to line " + std::to_string(last) + ")"
                             : std::string()) +
                  kWhy + " (lint passes: " + join(lint_passes) + ")";
      f.fix_hint = kHint;
      f.file = setup.file_name;
      f.line = first;
      f.column = static_cast<int>(content_offset(source, lines, first) - lines.offset(first)) + 1;
      f.excerpt = lines.line_text(source, first);
      f.location = f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column);
      sink.add(std::move(f), "unlinted|" + std::to_string(first));
    }
  }
}

void report_unlinted_unknown(const std::string& why, const RuleSetup& setup, FindingSink& sink) {
  const RuleEntry* entry = find_rule("unlinted-code");
  if (!entry) return;
  const std::string severity = rule_severity(*entry, setup);
  if (severity == "off") return;
  LintFinding f;
  f.rule = entry->info.name;
  f.layer = "L1";
  f.severity = severity;
  f.message = "the lines the platform's compiler compiles could not be compared with what lint parsed: " + why;
  f.fix_hint = "simplify the preprocessing: no macro bombs, no huge includes";
  f.file = setup.file_name;
  f.location = f.file;
  sink.add(std::move(f), "unlinted|unknown");
}

}  // namespace kgb::lint::detail
