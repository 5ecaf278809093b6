#include <nlohmann/json.hpp>

#include "kgb/lint.h"

namespace kgb::lint {

bool LintReport::rejected() const {
  for (const auto& f : findings)
    if (f.severity == "reject") return true;
  return false;
}

std::vector<Finding> LintReport::verdict_findings() const {
  std::vector<Finding> out;
  for (const auto& f : findings) {
    Finding v = f;  // the Finding part
    if (!f.fix_hint.empty()) v.message += " Fix: " + f.fix_hint;
    out.push_back(std::move(v));
  }
  return out;
}

void to_json(nlohmann::json& j, const LintFinding& f) {
  j = nlohmann::json{{"rule", f.rule},         {"layer", f.layer}, {"severity", f.severity},
                     {"message", f.message},   {"location", f.location}, {"fix_hint", f.fix_hint},
                     {"file", f.file},         {"line", f.line},   {"column", f.column},
                     {"excerpt", f.excerpt}};
}

void from_json(const nlohmann::json& j, LintFinding& f) {
  f.rule = j.value("rule", "");
  f.layer = j.value("layer", "L1");
  f.severity = j.value("severity", "reject");
  f.message = j.value("message", "");
  f.location = j.value("location", "");
  f.fix_hint = j.value("fix_hint", "");
  f.file = j.value("file", "");
  f.line = j.value("line", 0);
  f.column = j.value("column", 0);
  f.excerpt = j.value("excerpt", "");
}

void to_json(nlohmann::json& j, const LintReport& r) {
  j = nlohmann::json::object();
  j["parse_ok"] = r.parse_ok;
  j["rejected"] = r.rejected();
  j["seconds"] = r.seconds;
  j["passes"] = r.passes;
  j["infra_error"] = r.infra_error;
  auto& diagnostics = j["diagnostics"] = nlohmann::json::array();
  for (const auto& d : r.diagnostics) {
    nlohmann::json one;
    kgb::to_json(one, d);
    diagnostics.push_back(std::move(one));
  }
  j["findings"] = r.findings;
}

void from_json(const nlohmann::json& j, LintReport& r) {
  r.parse_ok = j.value("parse_ok", false);
  r.seconds = j.value("seconds", 0.0);
  r.passes = j.value("passes", std::vector<std::string>{});
  r.infra_error = j.value("infra_error", "");
  r.diagnostics.clear();
  if (j.contains("diagnostics"))
    for (const auto& d : j.at("diagnostics")) {
      Diagnostic one;
      kgb::from_json(d, one);
      r.diagnostics.push_back(std::move(one));
    }
  r.findings = j.value("findings", std::vector<LintFinding>{});
}

}  // namespace kgb::lint
