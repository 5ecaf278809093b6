#include "kgb/report/definitions.h"

#include <sstream>

namespace kgb::report {

const std::vector<Definition>& metric_definitions() {
  static const std::vector<Definition> defs = {
      {"solved",
       "a task is solved when one of its attempts produced a kernel that passed every correctness case and every "
       "anti-cheating layer (lint rules, dynamic checks, timed re-checks, roofline floor)."},
      {"accuracy", "solved tasks / all tasks of the run, overall, per source (the part of the task id before '/') and per platform."},
      {"pass@k",
       "unbiased estimator from n independent samples of a task of which c are correct: 1 - C(n-c,k)/C(n,k), computed as "
       "1 - prod_{i=n-c+1..n}(1 - k/i) and averaged over the tasks with at least k samples. A sample is an attempt "
       "(--samples), or one iteration of the sample policy."},
      {"any-of-K rounds",
       "what iterative-refinement harnesses (the Python KernelGenBench among them) report as pass@k, a different "
       "quantity: the share of attempts whose first correct kernel came within their first K iterations of refinement."},
      {"speedup",
       "per performance case: the harness times candidate and baseline in interleaved pairs of short blocks (C B, B C, "
       "...) on the same inputs and reports the median over pairs of baseline block median / candidate block median, "
       "with a 95% bootstrap interval; a case whose interval is wider than 10% of its speedup is marked unstable "
       "(--exclude-unstable leaves it out); per task: the geometric mean over its performance cases (fastest solved "
       "attempt); per run: the geometric mean over the solved, timed tasks, and over the matched subset."},
      {"matched subset",
       "the tasks solved by every run of the report; its geometric mean compares runs on the same tasks (no "
       "survivorship bias)."},
      {"fast_p",
       "the share of ALL tasks solved with a speedup above p, for p in {0, 0.8, 1, 1.5, 2}; failed tasks stay in the "
       "denominator; fast_0 counts every solved task."},
      {"tokens",
       "input (cached input is the part read from the provider's cache), output (reasoning is the part spent "
       "thinking); totals cover every LLM call, failed ones included; per task = total / tasks, per success = total / "
       "solved tasks. Dollars likewise, from the price table of the run. Usage is as the server reported it; where "
       "it sent none (or zeros) the client's estimate of one token per 4 bytes stands in and the totals say "
       "\"estimated in part\"; failed calls without usage count 0 and are listed as \"without usage\". For an "
       "external agent (kgb mcp-server) the tokens are those its harness reported (\"reported by the agent\"), each "
       "report counted as one call."},
      {"time",
       "per task: the LLM and tool time of its attempts, split into LLM latency, lint, compile, run (correctness "
       "check), profile (timing) and other harness time (process start-up, inputs and reference outputs)."},
      {"iterations to first success", "the 1-based iteration of an attempt's first correct kernel; mean and median over solved attempts."},
      {"budget curve",
       "accuracy as a function of a budget B in tokens, dollars or iterations, from the recorded trajectories: a task "
       "counts at B when one of its attempts had spent at most B when its first correct kernel came."},
      {"accuracy gap", "per platform: its accuracy minus the reference platform's, in percentage points, over the tasks run on every platform."},
      {"solved on all platforms", "tasks solved on every platform / tasks run on every platform, for one agent configuration (policy, provider, model)."},
      {"performance portability",
       "per task: the harmonic mean of its per-platform efficiencies (speedup over each platform's own baseline), 0 "
       "when it fails on any platform; platforms that cannot time add no term; the run figure is the mean over tasks."},
  };
  return defs;
}

std::string definitions_text(size_t width) {
  std::ostringstream out;
  for (const auto& d : metric_definitions()) {
    std::string line = "  " + d.name + ":";
    std::istringstream words(d.text);
    std::string word;
    while (words >> word) {
      if (line.size() + 1 + word.size() > width) {
        out << line << "\n";
        line = "      " + word;
      } else {
        line += " " + word;
      }
    }
    out << line << "\n";
  }
  return out.str();
}

}  // namespace kgb::report
