#include "rules/line_marker.h"

#include <algorithm>
#include <string>
#include <vector>

#include <clang/Basic/LangOptions.h>
#include <clang/Lex/Lexer.h>

#include "rules/rule.h"
#include "rules/source_lines.h"

namespace kgb::lint::detail {
namespace {

struct RawToken {
  clang::tok::TokenKind kind;
  bool line_start;
  std::string identifier;  // raw identifiers, and the text of string literals
  size_t offset;
};

// The raw tokens of `text` from `begin`, in every branch, active or not;
// digraphs (`%:line`) and trigraphs (`??=line`) spell `#` too.
// `text` with every line splice (a backslash or `??/` before a newline) turned
// into blanks of the same length, so `#\<newline>line` lexes as the directive
// it is and offsets stay those of the original.
std::string without_splices(const std::string& text) {
  std::string out = text;
  for (size_t at = 0; at < out.size(); ++at) {
    size_t length = 0;
    if (out[at] == '\\') length = 1;
    else if (out.compare(at, 3, "?\?/") == 0) length = 3;
    if (!length) continue;
    size_t end = at + length;
    if (end < out.size() && out[end] == '\r') ++end;
    if (end < out.size() && out[end] == '\n') {
      std::fill(out.begin() + static_cast<long>(at), out.begin() + static_cast<long>(end) + 1, ' ');
      at = end;
    }
  }
  return out;
}

std::vector<RawToken> raw_tokens(const std::string& original, size_t begin) {
  const std::string text = without_splices(original);
  clang::LangOptions options;
  options.CPlusPlus = options.CPlusPlus11 = options.CPlusPlus14 = options.CPlusPlus17 = true;
  options.LineComment = true;
  options.Digraphs = true;
  options.Trigraphs = true;
  clang::Lexer lexer(clang::SourceLocation(), options, text.data(), text.data() + begin, text.data() + text.size());
  lexer.SetCommentRetentionState(false);
  std::vector<RawToken> out;
  clang::Token token;
  for (lexer.LexFromRawLexer(token); token.isNot(clang::tok::eof); lexer.LexFromRawLexer(token)) {
    const size_t end = static_cast<size_t>(lexer.getBufferLocation() - text.data());
    out.push_back({token.getKind(), token.isAtStartOfLine(),
                   token.is(clang::tok::raw_identifier)          ? token.getRawIdentifier().str()
                   : clang::tok::isStringLiteral(token.getKind()) ? text.substr(end - token.getLength(), token.getLength())
                                                                    : std::string(),
                   end - token.getLength()});
  }
  return out;
}

// What the directive starting at tokens[i] (a `#` opening a line) does to line
// mapping, or empty when it is another directive.
std::string line_control(const std::vector<RawToken>& tokens, size_t i) {
  const auto on_line = [&](size_t k) { return k < tokens.size() && !tokens[k].line_start; };
  if (!on_line(i + 1)) return {};
  const RawToken& name = tokens[i + 1];
  if (name.kind == clang::tok::numeric_constant) return "a GNU line marker (`# N \"file\" flags`)";
  if (name.identifier == "line") return "a `#line` directive";
  if (name.identifier == "pragma" && on_line(i + 3) && (tokens[i + 2].identifier == "GCC" || tokens[i + 2].identifier == "clang") &&
      tokens[i + 3].identifier == "system_header")
    return "`#pragma " + tokens[i + 2].identifier + " system_header`";
  return {};
}

// `_Pragma("GCC system_header")` (or clang), the operator form of the pragma,
// which also works inside a macro.
std::string pragma_operator(const std::vector<RawToken>& tokens, size_t i) {
  if (tokens[i].kind != clang::tok::raw_identifier || (tokens[i].identifier != "_Pragma" && tokens[i].identifier != "__pragma"))
    return {};
  if (i + 2 >= tokens.size() || tokens[i + 1].kind != clang::tok::l_paren) return {};
  if (tokens[i + 2].identifier.find("system_header") == std::string::npos) return {};
  return "`" + tokens[i].identifier + "(" + tokens[i + 2].identifier + ")`";
}

}  // namespace

std::vector<size_t> scan_line_markers(const std::string& text, size_t begin, int first_line, const RuleSetup& setup,
                                      FindingSink& sink) {
  std::vector<size_t> found;
  const RuleEntry* entry = find_rule("line-marker");
  if (!entry || begin >= text.size()) return found;
  const std::string severity = rule_severity(*entry, setup);
  if (severity == "off") return found;
  const SourceLines lines(text);
  const int begin_line = lines.at(begin).first;
  const std::vector<RawToken> tokens = raw_tokens(text, begin);
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string what;
    if (tokens[i].kind == clang::tok::hash && tokens[i].line_start) {
      what = line_control(tokens, i);
      if (!what.empty()) found.push_back(tokens[i].offset);
    } else {
      what = pragma_operator(tokens, i);
    }
    if (what.empty()) continue;
    LintFinding f;
    f.rule = entry->info.name;
    f.layer = "L1";
    f.severity = severity;
    f.message = what + " renames the candidate's own lines (up to passing them off as a system header); "
                "candidate code must keep its real file and line numbers";
    f.fix_hint = "remove the directive";
    f.file = setup.file_name;
    const auto [line, column] = lines.at(tokens[i].offset);
    f.line = first_line + (line - begin_line);
    f.column = column;
    f.excerpt = lines.line_text(text, line);
    f.location = f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column);
    sink.add(std::move(f), "line-marker|" + std::to_string(f.line));
  }
  return found;
}

bool has_conditional_directive(const std::string& text) {
  const std::vector<RawToken> tokens = raw_tokens(text, 0);
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].kind != clang::tok::hash || !tokens[i].line_start || tokens[i + 1].line_start) continue;
    const std::string& name = tokens[i + 1].identifier;
    if (name == "if" || name == "ifdef" || name == "ifndef" || name == "elif" || name == "else" || name == "elifdef" ||
        name == "elifndef")
      return true;
  }
  return false;
}

void blank_directives(std::string& text, const std::vector<size_t>& offsets) {
  for (size_t at : offsets)
    while (at < text.size() && text[at] != '\n') {
      if (text[at] == '\\' && at + 1 < text.size() && text[at + 1] == '\n') {
        at += 2;  // a continued line belongs to the directive
        continue;
      }
      text[at++] = ' ';
    }
}

}  // namespace kgb::lint::detail
