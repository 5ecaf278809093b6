#include "synthetic.h"

namespace kgb::report::testing {

Attempt make_attempt(const std::string& task, int sample, const std::vector<Step>& steps, const std::string& kernel) {
  Attempt a;
  a.task = task;
  a.sample = sample;
  a.status = "failed";
  a.stop_reason = "max-iterations";
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    Iteration it;
    it.index = static_cast<int>(i);
    it.conversation = s.conversation;
    it.finished = true;
    it.outcome = s.outcome;
    it.correct = s.outcome == "passed";
    it.tokens.input = s.tokens * 3 / 4;
    it.tokens.output = s.tokens - it.tokens.input;
    it.cost_usd = static_cast<double>(s.tokens) * 1e-6;
    it.llm_seconds = 2;
    it.summary = s.outcome;
    it.feedback = s.feedback;
    it.kernel_sha = "sha-" + std::to_string(i);
    it.llm_calls = 1;
    Evaluation run;
    run.purpose = "run";
    run.outcome = s.outcome;
    run.passed = it.correct;
    run.lint_seconds = 0.1;
    run.compile_seconds = 0.5;
    run.check_seconds = 0.2;
    run.total_seconds = 0.8;
    it.evaluations.push_back(run);
    it.tool_calls.push_back({"run", s.outcome, it.correct, 0.85, 0});
    a.time.llm += 2;
    a.time.lint += 0.1;
    a.time.compile += 0.5;
    a.time.run += 0.2;
    a.time.other += 0.05;
    if (it.correct && !s.cases.empty()) {
      Evaluation profile = run;
      profile.purpose = "profile";
      profile.time_seconds = 1;
      profile.total_seconds = 1.8;
      for (size_t c = 0; c < s.cases.size(); ++c)
        profile.cases.push_back({"case" + std::to_string(c), "float32", s.cases[c].second, s.cases[c].first, "plain", 0.5});
      it.evaluations.push_back(profile);
      it.tool_calls.push_back({"profile", "passed", true, 1.85, 1});
      a.time.lint += 0.1;
      a.time.compile += 0.5;
      a.time.run += 0.2;
      a.time.profile += 1;
      a.time.other += 0.05;
    }
    it.tool_seconds = it.correct && !s.cases.empty() ? 2.7 : 0.85;
    a.tokens += it.tokens;
    a.cost_usd += it.cost_usd;
    a.seconds += it.llm_seconds + it.tool_seconds;
    a.iterations.push_back(it);
    if (it.correct && !a.correct) {
      a.correct = true;
      a.status = "solved";
      a.stop_reason = "correct";
      a.best_iteration = it.index;
    }
  }
  if (!a.correct && !steps.empty()) a.best_iteration = static_cast<int>(steps.size()) - 1;
  a.best_kernel = kernel;
  a.best_kernel_sha = "sha-best";
  return a;
}

Run make_run(const std::string& id, const std::string& platform, std::vector<Attempt> attempts, const std::string& policy,
             const std::string& model) {
  Run r;
  r.id = id;
  r.status = "finished";
  r.policy = policy;
  r.provider = "oracle";
  r.model = model;
  r.platform = platform;
  r.created_at = "2025-01-01T00:00:00.000Z";
  r.git_revision = "abc";
  for (const auto& a : attempts) {
    r.tokens += a.tokens;
    r.cost_usd += a.cost_usd;
    for (const auto& it : a.iterations) r.llm_calls += it.llm_calls;
  }
  r.attempts = std::move(attempts);
  return r;
}

}  // namespace kgb::report::testing
