// Hand-built runs for the report tests: plain model.h structs, no store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kgb/report/model.h"

namespace kgb::report::testing {

// One iteration: its outcome, tokens and, for a correct one, the timed cases
// as (baseline us, candidate us) pairs.
struct Step {
  std::string outcome;  // "passed" makes it correct
  int64_t tokens = 1000;
  std::vector<std::pair<double, double>> cases = {};
  std::string feedback = {};
  std::string conversation = {};
};

// An attempt from its steps: status solved when a step passed; the best
// iteration is the first passing one; times per stage are fixed per evaluation
// (lint 0.1 s, compile 0.5 s, check 0.2 s, time 1 s when timed, 0.05 s other)
// and 2 s of LLM latency per iteration.
Attempt make_attempt(const std::string& task, int sample, const std::vector<Step>& steps, const std::string& kernel = "int k;");

Run make_run(const std::string& id, const std::string& platform, std::vector<Attempt> attempts,
             const std::string& policy = "refine", const std::string& model = "model-a");

}  // namespace kgb::report::testing
