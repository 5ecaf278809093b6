#include "findings.h"

namespace kgb::lint::detail {

void FindingSink::add(LintFinding finding, std::string key) {
  if (key.empty())
    key = finding.rule + "|" + finding.file + "|" + std::to_string(finding.line) + "|" +
          std::to_string(finding.column) + "|" + finding.message;
  if (!seen_.insert(key).second) return;
  int& count = per_rule_[finding.rule];
  if (++count > kMaxPerRule) return;  // the first ones say enough; a flood hides other rules
  findings_.push_back(std::move(finding));
  keys_.push_back(std::move(key));
}

void FindingSink::merge(FindingSink&& other) {
  for (size_t i = 0; i < other.findings_.size(); ++i) add(std::move(other.findings_[i]), std::move(other.keys_[i]));
  other.findings_.clear();
  other.keys_.clear();
}

std::string RuleSetup::option(const std::string& rule, const std::string& name, const std::string& fallback) const {
  if (options) {
    auto it = options->find(rule + "." + name);
    if (it != options->end()) return it->second;
  }
  return fallback;
}

}  // namespace kgb::lint::detail
