// The rule interface, in the style of clang-tidy checks: a rule has a name, a
// description, options with defaults, registers AST matchers and preprocessor
// callbacks, and reports findings with a location and a fix hint.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/Lex/Preprocessor.h>

#include "findings.h"
#include "kgb/lint.h"

namespace kgb::lint::detail {

// An OpenCL C program found in a launcher, ready to be parsed on its own.
struct EmbeddedProgram {
  std::string text;  // with a #line directive mapping it to the launcher's lines
  int line = 0;      // launcher line of the program's first character
  size_t candidate_offset = 0;  // where the launcher's text starts in `text` (before: lint's own lines)
};

// What one pass shares with its rules.
struct PassState {
  RuleSetup setup;
  FindingSink* sink = nullptr;
  clang::SourceManager* sources = nullptr;
  clang::Preprocessor* preprocessor = nullptr;
  clang::ASTContext* ast = nullptr;                  // set when the translation unit is complete
  std::vector<clang::Decl*> main_file_decls;         // top-level declarations of the candidate
  std::vector<EmbeddedProgram>* programs = nullptr;  // OpenCL launchers: the programs found
};

class Rule : public clang::ast_matchers::MatchFinder::MatchCallback {
 public:
  Rule(const RuleInfo& info, PassState& state);
  ~Rule() override = default;

  const std::string& name() const { return info_.name; }

  virtual void register_pp_callbacks(clang::Preprocessor& preprocessor) {}
  virtual void register_matchers(clang::ast_matchers::MatchFinder& finder) {}
  // The match callback.
  virtual void check(const clang::ast_matchers::MatchFinder::MatchResult& result) {}
  // After matching: checks over the whole translation unit.
  virtual void on_translation_unit(clang::ASTContext& ast) {}

  void run(const clang::ast_matchers::MatchFinder::MatchResult& result) final { check(result); }
  llvm::StringRef getID() const override { return info_.name; }

 protected:
  // `key` as in FindingSink::add.
  void report(clang::SourceLocation location, std::string message, std::string fix_hint, std::string key = {});
  void report_file(std::string message, std::string fix_hint);
  std::string option(const std::string& option_name) const;  // request value, else the catalog default
  bool option_enabled(const std::string& option_name) const;
  bool in_main_file(clang::SourceLocation location) const;

  const RuleInfo& info_;
  PassState& state_;
  std::string severity_;
};

// True for locations in the candidate's own file (not a header, not the
// command line's <built-in> buffer), after macro expansion.
bool written_in_main_file(const clang::SourceManager& sources, clang::SourceLocation location);
// Matches nodes whose expansion lies in the candidate's own buffer, judged by
// the real file (FileID), never by line markers: clang's isExpansionInMainFile
// believes a `# 1 "/usr/include/x.h" 1 3` marker and would skip what follows.
AST_POLYMORPHIC_MATCHER(isExpansionInCandidateFile,
                        AST_POLYMORPHIC_SUPPORTED_TYPES(clang::Decl, clang::Stmt, clang::TypeLoc)) {
  return written_in_main_file(Finder->getASTContext().getSourceManager(), Node.getBeginLoc());
}

// A finding located at `location` (its expansion, at its real file and line:
// #line mappings ignored, except lint's own in extracted OpenCL programs).
LintFinding make_finding(const PassState& state, clang::SourceLocation location);
// The source line holding `location`, trimmed to a readable length.
std::string source_line(const clang::SourceManager& sources, clang::SourceLocation location);
// The candidate's display name for a file name the parser reports.
std::string display_file_name(const RuleSetup& setup, llvm::StringRef parser_file_name);

// ---- the registry --------------------------------------------------------

using RuleFactory = std::unique_ptr<Rule> (*)(const RuleInfo& info, PassState& state);

struct RuleEntry {
  RuleInfo info;
  // Languages the rule runs on, and passes it skips (e.g. entry-signature only
  // on the CUDA host pass).
  std::vector<Language> languages;
  std::vector<std::string> skipped_passes;
  bool needs_task = false;
  RuleFactory create = nullptr;  // null: the rule runs outside the passes (inactive-code)
};

const std::vector<RuleEntry>& rule_registry();
const RuleEntry* find_rule(const std::string& name);
// The severity a request gives a rule: reject, warn or off (an unknown value keeps the default).
std::string resolve_severity(const RuleInfo& info, const RuleSetup& setup);
// The severity a request gives a rule: its option, else the default; "off" disables it.
std::string rule_severity(const RuleEntry& entry, const RuleSetup& setup);
// The rules that run on a pass.
std::vector<std::unique_ptr<Rule>> create_rules(PassState& state);

}  // namespace kgb::lint::detail
