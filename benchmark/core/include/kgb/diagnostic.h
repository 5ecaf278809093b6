// What a stage reports about a candidate: compiler-style diagnostics and the
// findings of lint and the anti-cheating checks. A header of its own, so that
// the lint library (29 Clang translation units) does not recompile whenever
// the verdict or the evaluator's options change.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace kgb {

struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string severity;  // error | warning | note | fatal
  std::string message;
  std::string excerpt;   // the source line, when known
};

// An anti-cheating or lint finding. Every finding names its rule.
struct Finding {
  std::string rule;      // e.g. "input-mutated", "output-untouched", "below-roofline"
  std::string layer;     // "L1", "L2", "L3"
  std::string severity;  // reject | warn
  std::string message;
  std::string location;  // "file:line:col" or a case name
};

// JSON, as in the verdict (src/verdict.cpp).
void to_json(nlohmann::json& j, const Diagnostic& d);
void to_json(nlohmann::json& j, const Finding& f);
void from_json(const nlohmann::json& j, Diagnostic& d);
void from_json(const nlohmann::json& j, Finding& f);

}  // namespace kgb
