#include "rules/rule.h"

#include <algorithm>

#include <clang/Basic/SourceManager.h>

namespace kgb::lint::detail {

Rule::Rule(const RuleInfo& info, PassState& state)
    : info_(info), state_(state), severity_(resolve_severity(info, state.setup)) {}

std::string display_file_name(const RuleSetup& setup, llvm::StringRef parser_file_name) {
  // OpenCL programs carry the launcher's overlay path in their #line directives.
  if (parser_file_name == setup.main_path || parser_file_name.starts_with(std::string(setup.main_path) + "."))
    return setup.file_name;
  return parser_file_name.str();
}

std::string source_line(const clang::SourceManager& sources, clang::SourceLocation location) {
  if (location.isInvalid()) return {};
  const auto [file, offset] = sources.getDecomposedLoc(location);
  bool invalid = false;
  const llvm::StringRef buffer = sources.getBufferData(file, &invalid);
  if (invalid || offset > buffer.size()) return {};
  size_t begin = offset;
  while (begin > 0 && buffer[begin - 1] != '\n') --begin;
  size_t end = buffer.find('\n', offset);
  if (end == llvm::StringRef::npos) end = buffer.size();
  std::string line = buffer.substr(begin, end - begin).str();
  if (!line.empty() && line.back() == '\r') line.pop_back();
  constexpr size_t kMaxExcerpt = 200;
  if (line.size() > kMaxExcerpt) line = line.substr(0, kMaxExcerpt) + "...";
  return line;
}

LintFinding make_finding(const PassState& state, clang::SourceLocation location) {
  LintFinding f;
  f.layer = "L1";
  f.file = state.setup.file_name;
  if (state.sources && location.isValid()) {
    const clang::SourceManager& sm = *state.sources;
    const clang::SourceLocation expansion = sm.getExpansionLoc(location);
    // Only lint's own #line in front of an extracted OpenCL program is honoured
    // (it maps the program to the launcher); the candidate's are rejected.
    const bool lint_mapped = state.setup.language == Language::OpenCLC;
    const clang::PresumedLoc presumed = sm.getPresumedLoc(expansion, lint_mapped);
    if (presumed.isValid()) {
      f.file = display_file_name(state.setup, presumed.getFilename());
      f.line = static_cast<int>(presumed.getLine());
      f.column = static_cast<int>(presumed.getColumn());
    }
    f.excerpt = source_line(sm, expansion);
  }
  f.location = f.line > 0 ? f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column) : f.file;
  return f;
}

void Rule::report(clang::SourceLocation location, std::string message, std::string fix_hint, std::string key) {
  LintFinding f = make_finding(state_, location);
  f.rule = info_.name;
  f.severity = severity_;
  f.message = std::move(message);
  f.fix_hint = std::move(fix_hint);
  if (!key.empty()) key = info_.name + "|" + f.file + "|" + std::to_string(f.line) + "|" + key;
  state_.sink->add(std::move(f), std::move(key));
}

void Rule::report_file(std::string message, std::string fix_hint) {
  LintFinding f;
  f.rule = info_.name;
  f.layer = "L1";
  f.severity = severity_;
  f.message = std::move(message);
  f.fix_hint = std::move(fix_hint);
  f.file = state_.setup.file_name;
  f.location = f.file;
  state_.sink->add(std::move(f));
}

std::string Rule::option(const std::string& option_name) const {
  for (const auto& o : info_.options)
    if (o.name == option_name) return state_.setup.option(info_.name, option_name, o.default_value);
  return state_.setup.option(info_.name, option_name, "");
}

bool Rule::option_enabled(const std::string& option_name) const {
  const std::string value = option(option_name);
  return value == "true" || value == "1" || value == "yes" || value == "on";
}

bool written_in_main_file(const clang::SourceManager& sources, clang::SourceLocation location) {
  return location.isValid() && sources.getFileID(sources.getExpansionLoc(location)) == sources.getMainFileID();
}

bool Rule::in_main_file(clang::SourceLocation location) const {
  return state_.sources && written_in_main_file(*state_.sources, location);
}

std::string resolve_severity(const RuleInfo& info, const RuleSetup& setup) {
  const std::string value = setup.option(info.name, "severity", info.default_severity);
  if (value == "reject" || value == "warn" || value == "off") return value;
  return info.default_severity;
}

std::string rule_severity(const RuleEntry& entry, const RuleSetup& setup) { return resolve_severity(entry.info, setup); }

const RuleEntry* find_rule(const std::string& name) {
  for (const auto& entry : rule_registry())
    if (entry.info.name == name) return &entry;
  return nullptr;
}

std::vector<std::unique_ptr<Rule>> create_rules(PassState& state) {
  std::vector<std::unique_ptr<Rule>> rules;
  for (const auto& entry : rule_registry()) {
    if (!entry.create) continue;
    if (std::find(entry.languages.begin(), entry.languages.end(), state.setup.language) == entry.languages.end())
      continue;
    if (std::find(entry.skipped_passes.begin(), entry.skipped_passes.end(), state.setup.pass) !=
        entry.skipped_passes.end())
      continue;
    if (entry.needs_task && !state.setup.task) continue;
    const std::string severity = rule_severity(entry, state.setup);
    if (severity == "off") continue;
    rules.push_back(entry.create(entry.info, state));
  }
  return rules;
}

}  // namespace kgb::lint::detail
