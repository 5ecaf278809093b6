// Where rules put their findings during one lint: deduplicated across the
// passes of a request (a CUDA source is parsed twice) and capped per rule.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kgb/lint.h"

namespace kgb::lint::detail {

class FindingSink {
 public:
  // `key` identifies the same finding seen again (another pass, another
  // template instantiation); empty: rule, file, line, column and message.
  void add(LintFinding finding, std::string key = {});
  // Moves another sink's findings in, deduplicated by their keys.
  void merge(FindingSink&& other);
  const std::vector<LintFinding>& findings() const { return findings_; }
  const std::vector<std::string>& keys() const { return keys_; }  // parallel to findings()
  std::vector<LintFinding> take() {
    keys_.clear();
    return std::move(findings_);
  }

  static constexpr int kMaxPerRule = 25;

 private:
  std::vector<LintFinding> findings_;
  std::vector<std::string> keys_;  // parallel to findings_
  std::set<std::string> seen_;
  std::map<std::string, int> per_rule_;
};

// The settings of a request a rule reads, resolved once.
struct RuleSetup {
  Language language = Language::Cpp;  // of the pass
  std::string backend;                // "cpu", "cuda", "hip", "opencl"
  std::string pass;                   // ParsePass::name
  const Task* task = nullptr;
  const Platform* platform = nullptr;
  const std::map<std::string, std::string>* options = nullptr;  // LintRequest::rule_options
  std::string file_name;   // the candidate's display name
  std::string main_path;   // the candidate's path inside the parser's overlay
  bool device_backend() const { return backend == "cuda" || backend == "hip" || backend == "opencl"; }
  // "<rule>.<option>" from the request, else `fallback`.
  std::string option(const std::string& rule, const std::string& name, const std::string& fallback) const;
};

}  // namespace kgb::lint::detail
