#include "rules/inactive_code.h"

#include <algorithm>
#include <regex>

#include <clang/Basic/LangOptions.h>
#include <clang/Lex/Lexer.h>

#include "rules/name_rule.h"
#include "rules/rules.h"
#include "rules/source_lines.h"

namespace kgb::lint::detail {
namespace {

struct NamedSpec {
  std::string rule;
  NameRuleSpec spec;
};

std::vector<NamedSpec> applicable_specs(const RuleSetup& setup) {
  using SpecMaker = NameRuleSpec (*)(const RuleSetup&);
  const std::pair<const char*, SpecMaker> makers[] = {
      {"banned-api", banned_api_spec},           {"process-escape", process_escape_spec},
      {"timing-api", timing_api_spec},           {"extra-concurrency", extra_concurrency_spec},
      {"device-limits", device_limits_spec},
  };
  std::vector<NamedSpec> out;
  for (const auto& [rule, make] : makers) {
    const RuleEntry* entry = find_rule(rule);
    if (!entry || rule_severity(*entry, setup) == "off") continue;
    if (std::find(entry->languages.begin(), entry->languages.end(), setup.language) == entry->languages.end()) continue;
    out.push_back({rule, make(setup)});
  }
  return out;
}

bool looks_like_api_name(const std::string& name) {
  // Lower-case words (time, read, signal) are only matched when called; names
  // with capitals, digits or underscores (cudaEvent_t, CUDA_API_...) always.
  return std::any_of(name.begin(), name.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

std::vector<SkippedRange> skipped_by_all(const std::vector<std::vector<SkippedRange>>& per_pass) {
  if (per_pass.empty()) return {};
  std::vector<SkippedRange> current = per_pass.front();
  for (size_t p = 1; p < per_pass.size(); ++p) {
    std::vector<SkippedRange> next;
    for (const auto& a : current)
      for (const auto& b : per_pass[p]) {
        const unsigned begin = std::max(a.begin, b.begin), end = std::min(a.end, b.end);
        if (begin < end) next.push_back({begin, end});
      }
    current = std::move(next);
  }
  return current;
}

void scan_inactive_code(const std::string& source, const std::vector<SkippedRange>& ranges, const RuleSetup& setup,
                        FindingSink& sink) {
  const RuleEntry* entry = find_rule("inactive-code");
  if (!entry || ranges.empty()) return;
  const std::string severity = rule_severity(*entry, setup);
  if (severity == "off") return;
  const std::vector<NamedSpec> specs = applicable_specs(setup);
  const std::vector<std::string> allowlist = include_allowlist_for(setup);
  const SourceLines lines(source);

  const auto report = [&](size_t offset, const std::string& message, const std::string& hint, const std::string& key) {
    LintFinding f;
    f.rule = entry->info.name;
    f.layer = "L1";
    f.severity = severity;
    f.message = message;
    f.fix_hint = hint;
    f.file = setup.file_name;
    std::tie(f.line, f.column) = lines.at(offset);
    f.excerpt = lines.line_text(source, f.line);
    f.location = f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column);
    sink.add(std::move(f), "inactive|" + std::to_string(f.line) + "|" + key);
  };
  const std::string branch_note = " in a preprocessor branch that no lint pass compiled; the platform's compiler may "
                                  "still compile it";
  const std::string hint = "remove the branch, or the forbidden code in it: every line must be visible to the lint";

  clang::LangOptions options;
  options.CPlusPlus = options.CPlusPlus11 = options.CPlusPlus14 = options.CPlusPlus17 = true;
  options.LineComment = true;
  options.Bool = true;
  static const std::regex include_line(R"(^[ \t]*#[ \t]*(include|include_next|import|embed)[ \t]*([<"])([^>"\n]*)[>"])");

  for (const SkippedRange& range : ranges) {
    if (range.begin >= source.size()) continue;
    const unsigned end = std::min<unsigned>(range.end, static_cast<unsigned>(source.size()));
    // Directives, line by line.
    for (size_t at = range.begin; at < end;) {
      size_t eol = source.find('\n', at);
      if (eol == std::string::npos || eol > end) eol = end;
      std::smatch m;
      const std::string line = source.substr(at, eol - at);
      if (std::regex_search(line, m, include_line)) {
        const std::string header = m[3];
        if (m[1] == "embed") {
          report(at, "#embed of \"" + header + "\"" + branch_note, hint, "embed");
        } else if (auto problem = include_problem(header, allowlist)) {
          report(at, "#include " + std::string(m[2]) + header + (m[2] == "<" ? ">" : "\"") + " (include-allowlist: " +
                         *problem + ")" + branch_note,
                 hint, "include:" + header);
        }
      }
      at = eol + 1;
    }
    // Names and assembly strings, token by token.
    // The lexer stops at the NUL after the buffer, so it gets the whole source
    // and the loop stops at the range's end.
    clang::Lexer lexer(clang::SourceLocation(), options, source.data(), source.data() + range.begin,
                       source.data() + source.size());
    lexer.SetCommentRetentionState(false);
    std::vector<std::pair<std::string, size_t>> chain;  // identifiers joined by ::
    bool saw_asm = false;
    bool after_member_access = false;
    clang::Token token;
    const auto flush = [&](bool called) {
      if (chain.empty()) return;
      std::string qualified;
      for (const auto& part : chain) qualified += (qualified.empty() ? "" : "::") + part.first;
      const bool plain = chain.size() == 1;
      const size_t offset = chain.front().second;
      chain.clear();
      if (plain && (after_member_access || (!called && !looks_like_api_name(qualified)))) return;
      for (const auto& [rule, spec] : specs) {
        std::string pattern = spec.patterns.match(qualified);
        if (pattern.empty() && !plain) pattern = spec.patterns.match("std::" + qualified);
        if (pattern.empty()) continue;
        report(offset, "`" + qualified + "` (" + rule + ": " + spec.what + ")" + branch_note, hint, qualified);
        return;
      }
    };
    bool expect_name_after_colons = false;
    for (;;) {
      lexer.LexFromRawLexer(token);
      if (token.is(clang::tok::eof)) break;
      const char* token_end = lexer.getBufferLocation();
      const size_t offset = static_cast<size_t>(token_end - source.data()) - token.getLength();
      if (offset >= end) break;
      if (token.is(clang::tok::raw_identifier)) {
        const std::string name = token.getRawIdentifier().str();
        if (name == "asm" || name == "__asm" || name == "__asm__") saw_asm = true;
        if (!expect_name_after_colons) flush(false);
        chain.emplace_back(name, offset);
        expect_name_after_colons = false;
        continue;
      }
      if (token.is(clang::tok::coloncolon) && !chain.empty()) {
        expect_name_after_colons = true;
        continue;
      }
      flush(token.is(clang::tok::l_paren));
      expect_name_after_colons = false;
      after_member_access = token.isOneOf(clang::tok::period, clang::tok::arrow);
      if (saw_asm && clang::tok::isStringLiteral(token.getKind())) {
        const std::string text = source.substr(offset, token.getLength());
        for (const auto& [rule, spec] : specs)
          for (const auto& marker : spec.asm_markers)
            if (text.find(marker) != std::string::npos)
              report(offset, "inline assembly with `" + marker + "` (" + rule + ": " + spec.what + ")" + branch_note,
                     hint, "asm:" + marker);
      }
    }
    flush(false);
  }
}

}  // namespace kgb::lint::detail
