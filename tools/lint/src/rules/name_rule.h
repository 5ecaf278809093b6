// The machinery shared by the rules that forbid names: calls, references,
// members, constructions, types and header macros are matched on the real
// declaration (macros resolved, inline namespaces ignored, asm labels and
// aliases followed), never on the spelling alone.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "patterns.h"
#include "rules/rule.h"

namespace kgb::lint::detail {

struct NameRuleSpec {
  NamePatterns patterns;        // declarations, and macros defined in headers
  NamePatterns defined_macros;  // macros the candidate must not #define
  std::vector<std::string> asm_markers;  // forbidden substrings of inline assembly
  std::string what;    // "a timing or clock API"
  std::string reason;  // why it is forbidden
  std::string hint;    // how to fix
};

// The tables of the name-based rules for a request; the inactive-code scan
// reuses them on preprocessor branches the parser skipped.
NameRuleSpec banned_api_spec(const RuleSetup& setup);
NameRuleSpec process_escape_spec(const RuleSetup& setup);
NameRuleSpec timing_api_spec(const RuleSetup& setup);
NameRuleSpec extra_concurrency_spec(const RuleSetup& setup);
NameRuleSpec device_limits_spec(const RuleSetup& setup);

// The fully qualified name a declaration is matched by: inline and anonymous
// namespaces dropped, extern "C" functions by their plain name, an asm label
// or alias target instead of the declared name.
std::string qualified_name(const clang::NamedDecl* decl);

class NameRule : public Rule {
 public:
  NameRule(const RuleInfo& info, PassState& state, NameRuleSpec spec);

  void register_pp_callbacks(clang::Preprocessor& preprocessor) override;
  void register_matchers(clang::ast_matchers::MatchFinder& finder) override;
  void onStartOfTranslationUnit() override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult& result) override;

  // Preprocessor callbacks land here.
  void on_macro_expansion(const clang::Token& name, const clang::MacroInfo* macro);
  void on_macro_definition(const clang::Token& name);

 protected:
  // The pattern a declaration matches, or empty. Declarations the candidate
  // defines itself are its own code, never a library's.
  std::string match_decl(const clang::NamedDecl* decl, std::string* name);
  void report_name(clang::SourceLocation location, const std::string& name, const std::string& pattern);
  void check_asm(const clang::AsmStmt* statement);

  NameRuleSpec spec_;
  std::map<std::string, std::string> aliases_;  // macro target -> banned macro name
  std::map<const clang::NamedDecl*, std::string> name_cache_;
};

}  // namespace kgb::lint::detail
