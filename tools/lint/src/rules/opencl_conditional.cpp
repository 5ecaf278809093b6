#include "rules/opencl_conditional.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <vector>

#include <clang/Basic/LangOptions.h>
#include <clang/Lex/Lexer.h>

#include "patterns.h"
#include "rules/rule.h"
#include "rules/source_lines.h"

namespace kgb::lint::detail {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool iequals(const std::string& a, const char* b) {
  size_t i = 0;
  for (; i < a.size() && b[i]; ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) return false;
  return i == a.size() && !b[i];
}

}  // namespace

std::string driver_macro_family(const std::string& name) {
  if (starts_with(name, "__") || (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))))
    return "a reserved name, defined by compilers and drivers";
  if (starts_with(name, "cl_") || starts_with(name, "CL_")) return "an OpenCL extension or version name";
  if (starts_with(name, "FP_FAST_FMA") || name == "FULL_PROFILE" || name == "EMBEDDED_PROFILE")
    return "a device property the driver defines";
  static constexpr std::array<const char*, 10> kVendors = {"NVIDIA", "AMD", "INTEL", "ARM",      "POCL",
                                                           "APPLE",  "MALI", "ADRENO", "QUALCOMM", "GPU"};
  for (const char* vendor : kVendors)
    if (iequals(name, vendor)) return "a vendor name";
  return {};
}

namespace {

struct Directive {
  std::string kind;  // if, elif, ifdef, ..., define, undef
  std::vector<std::pair<std::string, size_t>> names;  // identifiers after the directive's name, with offsets
};

// The directives of a program that name macros, read with a raw lexer (every
// branch, active or not; continued lines belong to their directive).
std::vector<Directive> macro_directives(const std::string& text, size_t begin) {
  static const std::array<const char*, 8> kChecked = {"if", "elif", "ifdef", "ifndef", "elifdef", "elifndef", "define", "undef"};
  clang::LangOptions options;
  options.OpenCL = true;
  options.LineComment = true;
  clang::Lexer lexer(clang::SourceLocation(), options, text.data(), text.data() + begin, text.data() + text.size());
  lexer.SetCommentRetentionState(false);
  std::vector<Directive> out;
  bool in_directive = false, at_directive_name = false;
  clang::Token token;
  for (lexer.LexFromRawLexer(token); token.isNot(clang::tok::eof); lexer.LexFromRawLexer(token)) {
    const size_t offset = static_cast<size_t>(lexer.getBufferLocation() - text.data()) - token.getLength();
    if (token.isAtStartOfLine()) {
      in_directive = false;
      at_directive_name = token.is(clang::tok::hash);
      continue;
    }
    if (at_directive_name) {
      at_directive_name = false;
      const std::string kind = token.is(clang::tok::raw_identifier) ? token.getRawIdentifier().str() : std::string();
      in_directive = std::find(kChecked.begin(), kChecked.end(), kind) != kChecked.end();
      if (in_directive) out.push_back({kind, {}});
      continue;
    }
    if (in_directive && token.is(clang::tok::raw_identifier)) out.back().names.emplace_back(token.getRawIdentifier().str(), offset);
  }
  return out;
}

}  // namespace

void scan_opencl_conditionals(const std::string& text, size_t begin, int first_line, const RuleSetup& setup,
                              FindingSink& sink) {
  const RuleEntry* entry = find_rule("opencl-conditional");
  if (!entry || begin >= text.size()) return;
  const std::string severity = rule_severity(*entry, setup);
  if (severity == "off") return;
  const std::vector<std::string> extra = split_list(setup.option("opencl-conditional", "extra", ""));
  const auto drivers = [&](const std::string& name) {
    if (std::find(extra.begin(), extra.end(), name) != extra.end()) return std::string();
    return driver_macro_family(name);
  };
  const std::vector<Directive> directives = macro_directives(text, begin);

  // Program macros whose bodies reach a driver's name (directly or through
  // other such macros) are the driver's too when a conditional tests them.
  // Bodies may use keywords (__global, __kernel) freely: only tests count.
  std::map<std::string, std::string> tainted;  // macro -> the driver name it reaches
  for (bool changed = true; changed;) {
    changed = false;
    for (const Directive& d : directives) {
      if (d.kind != "define" || d.names.empty() || tainted.count(d.names.front().first)) continue;
      for (size_t i = 1; i < d.names.size(); ++i) {
        const std::string& name = d.names[i].first;
        std::string reached = !drivers(name).empty() ? name : tainted.count(name) ? tainted[name] : std::string();
        if (reached.empty()) continue;
        tainted[d.names.front().first] = reached;
        changed = true;
        break;
      }
    }
  }

  const SourceLines lines(text);
  const int begin_line = lines.at(begin).first;
  for (const Directive& d : directives) {
    const bool conditional = d.kind != "define" && d.kind != "undef";
    for (size_t i = 0; i < d.names.size() && (conditional || i == 0); ++i) {
      const auto& [name, offset] = d.names[i];
      if (name == "defined") continue;
      std::string why = drivers(name);
      if (why.empty() && conditional && tainted.count(name))
        why = "a macro of the program that expands to the driver's `" + tainted[name] + "`";
      if (why.empty()) continue;
      LintFinding f;
      f.rule = entry->info.name;
      f.layer = "L1";
      f.severity = severity;
      f.message = "`#" + d.kind + "` in the OpenCL C program names `" + name + "`, " + why +
                  ": the driver that builds the program at run time decides its value, and lint parses only one "
                  "side of a branch on it";
      f.fix_hint = "branch only on the program's own macros (defined in the program or passed as build options)";
      f.file = setup.file_name;
      const auto [line, column] = lines.at(offset);
      f.line = first_line + (line - begin_line);
      f.column = column;
      f.excerpt = lines.line_text(text, line);
      f.location = f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column);
      sink.add(std::move(f), "opencl-conditional|" + std::to_string(f.line) + "|" + name);
    }
  }
}

}  // namespace kgb::lint::detail
