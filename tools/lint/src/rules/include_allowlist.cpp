// include-allowlist: a candidate is one file; it may include the standard
// library and its platform's runtime headers, nothing else. Headers outside the
// list pull in libraries the rules do not know, other files of the machine
// (absolute paths, ".."), or devices that never end (/dev/zero).
#include <clang/Lex/PPCallbacks.h>

#include "defaults.h"
#include "patterns.h"
#include "rules/rules.h"

namespace kgb::lint::detail {

std::vector<std::string> include_allowlist_for(const RuleSetup& setup) {
  if (setup.language == Language::OpenCLC) return {};
  std::vector<std::string> allowlist = effective_allowed_includes(setup.platform, setup.backend);
  for (auto& extra : split_list(setup.option("include-allowlist", "extra", ""))) allowlist.push_back(extra);
  return allowlist;
}

std::optional<std::string> include_problem(const std::string& header, const std::vector<std::string>& allowlist) {
  if (header.empty()) return "an empty header name";
  if (header.front() == '/') return "an absolute path";
  if (header.find("..") != std::string::npos) return "a path that leaves the include folders ('..')";
  for (const auto& pattern : allowlist)
    if (glob_match(pattern, header)) return std::nullopt;
  return allowlist.empty() ? std::optional<std::string>("no header may be included here")
                           : std::optional<std::string>("not on the platform's include allowlist");
}

namespace {

using namespace clang;

class IncludeAllowlistRule;

class IncludeCallbacks : public PPCallbacks {
 public:
  explicit IncludeCallbacks(IncludeAllowlistRule& rule) : rule_(rule) {}
  void InclusionDirective(SourceLocation hash, const Token&, StringRef file_name, bool angled, CharSourceRange,
                          OptionalFileEntryRef, StringRef, StringRef, const Module*, bool,
                          SrcMgr::CharacteristicKind) override;
  void EmbedDirective(SourceLocation hash, StringRef file_name, bool angled, OptionalFileEntryRef,
                      const LexEmbedParametersResult&) override;

 private:
  IncludeAllowlistRule& rule_;
};

class IncludeAllowlistRule : public Rule {
 public:
  IncludeAllowlistRule(const RuleInfo& info, PassState& state)
      : Rule(info, state), allowlist_(include_allowlist_for(state.setup)) {}

  void register_pp_callbacks(Preprocessor& preprocessor) override {
    preprocessor.addPPCallbacks(std::make_unique<IncludeCallbacks>(*this));
  }

  void on_include(SourceLocation hash, const std::string& header, bool angled) {
    if (!in_main_file(hash)) return;
    const auto problem = include_problem(header, allowlist_);
    if (!problem) return;
    const std::string written = angled ? "<" + header + ">" : "\"" + header + "\"";
    if (state_.setup.language == Language::OpenCLC) {
      report(hash, "#include " + written + " in an OpenCL C program: " + *problem,
             "put everything the kernel needs into the program string itself");
      return;
    }
    report(hash, "#include " + written + " is " + *problem + " for " + state_.setup.backend + " candidates",
           "use only the standard library and the platform's runtime headers; the candidate is one self-contained "
           "file");
  }

  void on_embed(SourceLocation hash, const std::string& file) {
    if (!in_main_file(hash)) return;
    report(hash, "#embed \"" + file + "\" reads a file into the program",
           "write the data into the source, or compute it");
  }

 private:
  std::vector<std::string> allowlist_;
};

void IncludeCallbacks::InclusionDirective(SourceLocation hash, const Token&, StringRef file_name, bool angled,
                                          CharSourceRange, OptionalFileEntryRef, StringRef, StringRef, const Module*,
                                          bool, SrcMgr::CharacteristicKind) {
  rule_.on_include(hash, file_name.str(), angled);
}

void IncludeCallbacks::EmbedDirective(SourceLocation hash, StringRef file_name, bool, OptionalFileEntryRef,
                                      const LexEmbedParametersResult&) {
  rule_.on_embed(hash, file_name.str());
}

}  // namespace

std::unique_ptr<Rule> create_include_allowlist(const RuleInfo& info, PassState& state) {
  return std::make_unique<IncludeAllowlistRule>(info, state);
}

}  // namespace kgb::lint::detail
