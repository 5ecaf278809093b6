// Every built-in policy end to end against the oracle server (real HTTP) on
// the cpu-x86_64 platform with injected faults, and native function calling
// against a scripted server. Iteration counts and outcomes follow from the
// faults: the oracle decides from the conversation it is sent, so the first K
// answers of each conversation fail to compile and the next M compute a wrong
// result, and with the agent's tools offered it drives them itself.
#include <doctest/doctest.h>

#include <atomic>
#include <set>
#include <filesystem>
#include <thread>

#include "agent_fixtures.h"
#include "kgb/agent/policy.h"
#include "kgb/store/run_store.h"

using namespace kgb;
using namespace kgb::test;

namespace {

std::vector<std::string> store_outcomes(store::RunStore& db, const std::string& run, const std::string& task, int sample = 0) {
  std::vector<std::string> out;
  for (const auto& it : iterations_of(db, run, task, sample)) out.push_back(it.outcome);
  return out;
}

std::unique_ptr<store::RunStore> open_store(const std::string& file) {
  auto db = store::RunStore::open(file);
  REQUIRE(db.ok());
  return std::move(db.value());
}

const std::vector<std::string> kFixedThenPass = {"compile-error", "wrong-result", "passed"};

// A kernel that does not compile: `good` calling an undeclared function.
std::string broken_version(const std::string& good) {
  std::string broken = good;
  broken.insert(broken.rfind('}'), "  this_does_not_compile();\n");
  return broken;
}

// An OpenAI tool call as a scripted model sends it.
nlohmann::json tool_call(const std::string& id, const std::string& name, const std::string& arguments) {
  return nlohmann::json{{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
}
std::string source_argument(const std::string& source) { return nlohmann::json{{"source", source}}.dump(); }

// tool-agent over blas/saxpy against a scripted model, which must end with a passing submit.
struct ToolAgentRun {
  agent::RunSummary summary;
  std::unique_ptr<store::RunStore> db;
  store::AttemptRecord attempt;
};
ToolAgentRun tool_agent_run(const std::string& name, const ScriptedServer& server) {
  agent::RunOptions o;
  o.config = scripted_config(fresh_dir(name) + "/runs.db", "blas/saxpy", server.base_url());
  o.config.policy = "tool-agent";
  ToolAgentRun r;
  r.summary = run_to_end(o);
  r.db = open_store(o.config.store);
  r.attempt = attempt_of(*r.db, r.summary.run_id, "blas/saxpy");
  CHECK(r.attempt.status == "solved");
  CHECK(r.attempt.stop_reason == "submitted");
  return r;
}

int evaluations_for(store::RunStore& db, const std::string& run, const std::string& purpose) {
  int n = 0;
  for (auto rows = db.evaluations(run); const auto& e : *rows) n += e.purpose == purpose;
  return n;
}

// vllm/silu_and_mul's performance case 2048x1408 alone: timing tests stay
// short (it matches no correctness case, so those runs check nothing).
const char* const kOnePerformanceCase = "*1*8";

}  // namespace

TEST_CASE("refine: a compile error, then a wrong result, then a pass, feeding back each failure") {
  const std::string dir = fresh_dir("refine");
  agent::RunOptions o;
  o.config = oracle_config(dir + "/runs.db", "blas/saxpy,vllm/silu_and_mul", 1, 1);
  o.config.policy = "refine";
  RecordingObserver obs;
  o.observer = &obs;
  const agent::RunSummary s = run_to_end(o);
  CHECK(s.status == "finished");
  CHECK(s.tasks == 2);
  CHECK(s.tasks_solved == 2);
  CHECK(s.iterations == 6);
  CHECK(s.evaluations == 6);
  CHECK(s.llm_calls == 6);
  CHECK(!s.oracle_url.empty());  // the oracle ran in-process behind real HTTP
  CHECK(s.spend.input_tokens > 0);
  CHECK(s.spend.output_tokens > 0);

  auto db = open_store(o.config.store);
  for (const std::string task : {"blas/saxpy", "vllm/silu_and_mul"}) {
    CAPTURE(task);
    CHECK(store_outcomes(*db, s.run_id, task) == kFixedThenPass);
    const auto a = attempt_of(*db, s.run_id, task);
    CHECK(a.status == "solved");
    CHECK(a.stop_reason == "correct");
    CHECK(a.iterations == 3);
    CHECK(a.best_iteration == 2);
    CHECK(db->kernel(a.best_kernel)->has_value());
    const auto its = iterations_of(*db, s.run_id, task);
    // Feedback is compact key: value text naming what went wrong.
    CHECK(its[0].feedback.find("outcome: compile-error") != std::string::npos);
    CHECK(its[0].feedback.find("error: candidate.cpp:") != std::string::npos);
    CHECK(its[1].feedback.find("outcome: wrong-result") != std::string::npos);
    CHECK(its[1].feedback.find("expected") != std::string::npos);
    CHECK(its[2].feedback.empty());
    CHECK(its[0].tokens.input > 0);
  }
  // The model saw the feedback: the second request carries the first feedback.
  std::stringstream jsonl;
  REQUIRE(db->export_table(s.run_id, "llm_calls", store::ExportFormat::Jsonl, jsonl).ok());
  std::string line;
  int with_feedback = 0;
  while (std::getline(jsonl, line)) {
    auto j = nlohmann::json::parse(line);
    if (j["iteration"] == 1 && j["request"]["messages"].dump().find("outcome: compile-error") != std::string::npos) ++with_feedback;
  }
  CHECK(with_feedback == 2);
  CHECK(obs.outcomes("blas/saxpy") == kFixedThenPass);
  CHECK(obs.attempts().size() == 2);
}

TEST_CASE("refine: the same error after N failed fixes abandons the approach and starts over") {
  const std::string dir = fresh_dir("refine-abandon");
  agent::RunOptions o;
  o.config = oracle_config(dir + "/runs.db", "blas/saxpy", 3, 0);
  o.config.policy = "refine";
  o.config.policies["refine"] = {{"max_failed_fixes", 2}, {"max_restarts", 1}, {"max_iterations", 6}};
  const agent::RunSummary s = run_to_end(o);
  auto db = open_store(o.config.store);
  CHECK(store_outcomes(*db, s.run_id, "blas/saxpy") ==
        std::vector<std::string>{"compile-error", "compile-error", "compile-error", "passed"});
  const auto its = iterations_of(*db, s.run_id, "blas/saxpy");
  CHECK(its[2].detail["restarts"] == 0);
  CHECK(its[3].detail["restarts"] == 1);
  // The fresh start tells the model what kept failing.
  std::stringstream jsonl;
  REQUIRE(db->export_table(s.run_id, "llm_calls", store::ExportFormat::Jsonl, jsonl).ok());
  std::string line, last;
  while (std::getline(jsonl, line)) last = line;
  const auto request = nlohmann::json::parse(last)["request"];
  CHECK(request["messages"].size() == 1);  // the conversation was reset to the task
  CHECK(request["messages"][0]["content"].get<std::string>().find("failed 2 times in a row") != std::string::npos);

  // With no restart left, the attempt is abandoned.
  agent::RunOptions o2 = o;
  o2.config.run_id.clear();
  o2.config.policies["refine"] = {{"max_failed_fixes", 2}, {"max_restarts", 0}, {"max_iterations", 6}};
  const agent::RunSummary s2 = run_to_end(o2);
  const auto a2 = attempt_of(*db, s2.run_id, "blas/saxpy");
  CHECK(a2.status == "abandoned");
  CHECK(a2.stop_reason == "abandoned");
  CHECK(a2.iterations == 3);
}

TEST_CASE("refine with profiling: correct kernels are timed, best kept, stop at max iterations below the target") {
  const std::string dir = fresh_dir("refine-profile");
  agent::RunOptions o;
  // vllm/silu_and_mul: its baseline is plain C++, built in every configuration.
  o.config = oracle_config(dir + "/runs.db", "vllm/silu_and_mul", 0, 0);
  o.config.policy = "refine";
  o.config.evaluation.time = true;
  o.config.evaluation.baseline = true;
  o.config.evaluation.time_budget_seconds = 0.05;
  o.config.evaluation.timing_pairs = 1;  // what is kept and why it stops is under test, not the timing's robustness
  o.config.evaluation.cases = kOnePerformanceCase;
  o.config.policies["refine"] = {{"target_speedup", 1000.0}, {"max_iterations", 2}};
  const agent::RunSummary s = run_to_end(o);
  auto db = open_store(o.config.store);
  const auto a = attempt_of(*db, s.run_id, "vllm/silu_and_mul");
  CHECK(a.status == "solved");
  CHECK(a.stop_reason == "max-iterations");
  CHECK(a.iterations == 2);
  CHECK(a.best_speedup > 0);
  const auto its = iterations_of(*db, s.run_id, "vllm/silu_and_mul");
  REQUIRE(its.size() == 2);
  CHECK(its[0].outcome == "passed");
  CHECK(its[0].speedup > 0);
  CHECK(its[0].feedback.find("speedup: ") != std::string::npos);
  CHECK(its[0].feedback.find("1000x") != std::string::npos);  // the target is named
  int runs = 0, profiles = 0;
  for (auto rows = db->evaluations(s.run_id); const auto& e : *rows) {
    runs += e.purpose == "run";
    profiles += e.purpose == "profile";
    if (e.purpose == "profile") CHECK(e.verdict["timings"].size() == 1);
  }
  CHECK(runs == 2);
  CHECK(profiles == 2);
}

TEST_CASE("sample: independent samples get no feedback, so every sample meets the first fault") {
  const std::string dir = fresh_dir("sample");
  agent::RunOptions o;
  o.config = oracle_config(dir + "/runs.db", "blas/saxpy", 1, 0);
  o.config.policy = "sample";
  o.config.policies["sample"] = {{"n", 2}};
  o.config.samples = 2;
  const agent::RunSummary s = run_to_end(o);
  CHECK(s.attempts == 2);
  CHECK(s.attempts_solved == 0);
  auto db = open_store(o.config.store);
  for (int sample = 0; sample < 2; ++sample) {
    const auto a = attempt_of(*db, s.run_id, "blas/saxpy", sample);
    CHECK(a.status == "failed");
    CHECK(a.stop_reason == "samples-done");
    CHECK(a.iterations == 2);
    for (auto rows = db->iterations(a.id); const auto& it : *rows) {
      CHECK(it.outcome == "compile-error");
      CHECK(it.feedback.empty());
    }
  }
  // Without faults every sample passes.
  agent::RunOptions clean = o;
  clean.config.oracle.compile_error_attempts = 0;
  clean.config.samples = 1;
  const agent::RunSummary s2 = run_to_end(clean);
  CHECK(s2.attempts_solved == 1);
  CHECK(store_outcomes(*db, s2.run_id, "blas/saxpy") == std::vector<std::string>{"passed", "passed"});
}

TEST_CASE("parallel-refine: n seeds x r rounds; the first correct seed continues into optimisation") {
  const std::string dir = fresh_dir("parallel");
  agent::RunOptions o;
  o.config = oracle_config(dir + "/runs.db", "vllm/silu_and_mul", 1, 1);
  o.config.policy = "parallel-refine";
  o.config.policies["parallel-refine"] = {{"seeds", 2}, {"rounds", 3}};
  const agent::RunSummary s = run_to_end(o);
  auto db = open_store(o.config.store);
  const auto a = attempt_of(*db, s.run_id, "vllm/silu_and_mul");
  CHECK(a.status == "solved");
  CHECK(a.stop_reason == "correct");
  CHECK(a.iterations == 6);
  CHECK(a.result["detail"]["winner_seed"] == 0);
  const auto its = *db->iterations(a.id);
  std::map<std::string, std::vector<std::string>> by_seed;
  for (const auto& it : its) by_seed[it.conversation].push_back(it.outcome);
  CHECK(by_seed["seed-0"] == kFixedThenPass);
  CHECK(by_seed["seed-1"] == kFixedThenPass);

  // With a speed target the winner alone goes on (no faults: both seeds pass
  // the first round, seed 0 wins and gets one optimisation round).
  agent::RunOptions opt = o;
  opt.config.oracle.compile_error_attempts = 0;
  opt.config.oracle.wrong_result_attempts = 0;
  opt.config.evaluation.time = true;
  opt.config.evaluation.baseline = true;
  opt.config.evaluation.time_budget_seconds = 0.05;
  opt.config.evaluation.timing_pairs = 1;
  opt.config.evaluation.cases = kOnePerformanceCase;
  opt.config.policies["parallel-refine"] = {{"seeds", 2}, {"rounds", 3}, {"target_speedup", 1000.0}, {"optimize_rounds", 1}};
  const agent::RunSummary s2 = run_to_end(opt);
  const auto a2 = attempt_of(*db, s2.run_id, "vllm/silu_and_mul");
  CHECK(a2.status == "solved");
  CHECK(a2.stop_reason == "optimize-rounds-done");
  CHECK(a2.iterations == 3);
  CHECK(a2.best_speedup > 0);
  const auto its2 = *db->iterations(a2.id);
  REQUIRE(its2.size() == 3);
  CHECK(its2[0].detail["phase"] == "search");
  CHECK(its2[1].detail["phase"] == "search");
  CHECK(its2.back().conversation == "seed-0");
  CHECK(its2.back().detail["phase"] == "optimize");
  // The optimisation round was asked for speed, in the winner's conversation.
  auto call = *db->find_llm_call(a2.id, 2, 0);
  REQUIRE(call.has_value());
  CHECK(call->request["messages"].dump().find("1000x") != std::string::npos);
}

TEST_CASE("tool-agent against the oracle: it lints, compiles, runs, profiles and submits, both dialects, streamed or not") {
  // The oracle as an agent: each failure a tool reports makes it write the next
  // draft (draft 1 does not compile, draft 2 computes a wrong result) and call
  // the same tool again; a passing check moves it to the next tool.
  for (const char* provider : {"oracle", "oracle-anthropic"}) {
    for (bool stream : {false, true}) {
      CAPTURE(provider);
      CAPTURE(stream);
      const std::string dir = fresh_dir(std::string("tool-oracle-") + provider + (stream ? "-stream" : ""));
      agent::RunOptions o;
      o.config = oracle_config(dir + "/runs.db", "blas/saxpy,vllm/silu_and_mul", 1, 1);
      o.config.provider.name = provider;
      o.config.provider.stream = stream;
      o.config.policy = "tool-agent";
      const agent::RunSummary s = run_to_end(o);
      CHECK(s.tasks_solved == 2);
      auto db = open_store(o.config.store);
      for (const std::string task : {"blas/saxpy", "vllm/silu_and_mul"}) {
        CAPTURE(task);
        const auto a = attempt_of(*db, s.run_id, task);
        CHECK(a.status == "solved");
        CHECK(a.stop_reason == "submitted");
        std::vector<std::string> tools;
        for (const auto& it : iterations_of(*db, s.run_id, task))
          for (const auto& c : it.detail["tool_calls"]) tools.push_back(c["tool"].get<std::string>() + ":" + c["outcome"].get<std::string>());
        // Lint catches the compile error where it is built; otherwise compile does.
        const std::vector<std::string> with_lint = {"lint:parse-errors", "lint:clean",  "compile:compiled", "run:wrong-result",
                                                    "run:passed",        "profile:passed", "submit:passed"};
        const std::vector<std::string> without_lint = {"lint:unavailable", "compile:compile-error", "compile:compiled",
                                                       "run:wrong-result", "run:passed",            "profile:passed",
                                                       "submit:passed"};
        CHECK((tools == with_lint || tools == without_lint));
        CHECK(a.iterations == 7);
      }
      CHECK(evaluations_for(*db, s.run_id, "submit") == 2);
    }
  }
}

TEST_CASE("tool-agent: a reply with code and no tool call is a submission (models without function calling)") {
  const std::string good = bundled_cpu_solution("blas/saxpy");
  const std::string broken = broken_version(good);
  ScriptedServer server([&](const RecordedRequest&, int index) { return openai_reply(fenced(index == 0 ? broken : good)); });
  const ToolAgentRun r = tool_agent_run("tool-implicit", server);
  CHECK(store_outcomes(*r.db, r.summary.run_id, "blas/saxpy") == std::vector<std::string>{"compile-error", "passed"});
  for (auto rows = r.db->evaluations(r.summary.run_id); const auto& e : *rows) CHECK(e.purpose == "submit");
}

TEST_CASE("tool-agent: a tool call cut off at the output limit is reported as cut, never made nor replayed") {
  const std::string good = bundled_cpu_solution("blas/saxpy");
  const std::string whole_args = source_argument(good);
  const std::string cut_args = whole_args.substr(0, whole_args.size() / 2);
  // A server like llama-server: a request that replays invalid call arguments gets HTTP 500.
  std::atomic<int> replayed_invalid{0};
  ScriptedServer server([&](const RecordedRequest& request, int index) {
    const auto body = nlohmann::json::parse(request.body);
    for (const auto& m : body["messages"])
      if (m.contains("tool_calls"))
        for (const auto& c : m["tool_calls"])
          if (nlohmann::json::parse(c["function"]["arguments"].get<std::string>(), nullptr, false).is_discarded()) {
            ++replayed_invalid;
            Reply failure;
            failure.status = 500;
            failure.body = R"({"error":{"code":500,"message":"Failed to parse tool call arguments as JSON","type":"server_error"}})";
            return failure;
          }
    if (index == 0) return openai_reply("Submitting.", "length", {}, nlohmann::json::array({tool_call("c1", "submit", cut_args)}));
    if (index == 1)  // a complete call, then a cut one: the first runs, the second is reported
      return openai_reply("", "length", {},
                          nlohmann::json::array({tool_call("c2", "compile", whole_args), tool_call("c3", "submit", cut_args)}));
    return openai_reply("", "tool_calls", {}, nlohmann::json::array({tool_call("c4", "submit", whole_args)}));
  });
  const ToolAgentRun r = tool_agent_run("tool-truncated", server);
  CHECK(replayed_invalid.load() == 0);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 3);
  const auto second = nlohmann::json::parse(requests[1].body)["messages"];
  CHECK(second[second.size() - 2] == nlohmann::json{{"role", "assistant"}, {"content", "Submitting."}});
  CHECK(second.back()["role"] == "user");
  CHECK(second.back()["content"].get<std::string>().find("cut off at the output limit") != std::string::npos);
  CHECK(second.back()["content"].get<std::string>().find("`submit`") != std::string::npos);
  const auto third = nlohmann::json::parse(requests[2].body)["messages"];
  CHECK(third[third.size() - 3]["tool_calls"].size() == 1);  // only the complete call is replayed
  CHECK(third[third.size() - 2]["role"] == "tool");
  CHECK(third.back()["content"].get<std::string>().find("the call to `submit` was not made") != std::string::npos);
  CHECK(store_outcomes(*r.db, r.summary.run_id, "blas/saxpy") == std::vector<std::string>{"truncated-tool-call", "compiled", "passed"});
  CHECK(evaluations_for(*r.db, r.summary.run_id, "submit") == 1);
}

TEST_CASE("tool-agent with native function calling: the model calls compile, run and submit itself") {
  const std::string good = bundled_cpu_solution("blas/saxpy");
  const std::string broken = broken_version(good);
  auto call = [](const std::string& id, const std::string& name, const std::string& source) {
    return tool_call(id, name, source_argument(source));
  };
  ScriptedServer server([&](const RecordedRequest&, int index) {
    if (index == 0) return openai_reply("", "tool_calls", {}, nlohmann::json::array({call("c1", "compile", broken)}));
    if (index == 1)
      return openai_reply("Fixed.", "tool_calls", {},
                          nlohmann::json::array({call("c2", "compile", good), call("c3", "run", good)}));
    if (index == 2) return openai_reply("", "tool_calls", {}, nlohmann::json::array({call("c4", "lint", "int x = ;")}));
    return openai_reply("", "tool_calls", {}, nlohmann::json::array({call("c5", "submit", good)}));
  });
  const ToolAgentRun r = tool_agent_run("tool-native", server);
  CHECK(r.attempt.iterations == 4);

  const auto requests = server.requests();
  REQUIRE(requests.size() == 4);
  const auto first = nlohmann::json::parse(requests[0].body);
  CHECK(first["tools"].size() == 5);
  // Tool results go back as tool messages in compact key: value form.
  const auto second = nlohmann::json::parse(requests[1].body);
  const auto& msgs = second["messages"];
  const auto& tool_msg = msgs[msgs.size() - 1];
  CHECK(tool_msg["role"] == "tool");
  CHECK(tool_msg["tool_call_id"] == "c1");
  const std::string result = tool_msg["content"];
  CHECK(result.find("tool: compile") != std::string::npos);
  CHECK(result.find("outcome: compile-error") != std::string::npos);
  CHECK(result.find("this_does_not_compile") != std::string::npos);
  const auto third = nlohmann::json::parse(requests[2].body);
  const std::string run_result = third["messages"][third["messages"].size() - 1]["content"];
  CHECK(run_result.find("tool: run") != std::string::npos);
  CHECK(run_result.find("outcome: passed") != std::string::npos);

  std::stringstream csv;
  REQUIRE(r.db->export_table(r.summary.run_id, "tool_calls", store::ExportFormat::Csv, csv).ok());
  const std::string text = csv.str();
  for (const char* tool : {",compile,", ",run,", ",lint,", ",submit,"}) CHECK(text.find(tool) != std::string::npos);
}

TEST_CASE("a stop request ends the run cleanly and a resume finishes it without repeating work") {
  const std::string dir = fresh_dir("stop");
  llm::CancelToken stop;
  struct StopAfterFirst : RecordingObserver {
    llm::CancelToken* token = nullptr;
    void on_iteration(const agent::IterationEvent& e) override {
      RecordingObserver::on_iteration(e);
      token->cancel();
    }
  } obs;
  obs.token = &stop;
  agent::RunOptions o;
  o.config = oracle_config(dir + "/runs.db", "blas/saxpy", 1, 1);
  o.config.policy = "refine";
  o.config.concurrency = 1;
  o.stop = stop;
  o.observer = &obs;
  const agent::RunSummary s = run_to_end(o);
  CHECK(s.status == "interrupted");
  CHECK(s.iterations == 1);
  auto db = open_store(o.config.store);
  CHECK(attempt_of(*db, s.run_id, "blas/saxpy").status == "running");
  CHECK(db->load_run(s.run_id)->status == "interrupted");

  agent::RunOptions r;
  r.config.store = o.config.store;
  r.resume = s.run_id;
  RecordingObserver obs2;
  r.observer = &obs2;
  const agent::RunSummary s2 = run_to_end(r);
  CHECK(s2.status == "finished");
  const auto its = iterations_of(*db, s.run_id, "blas/saxpy");
  // The first iteration is replayed from the store; the oracle decides from
  // the conversation, so the resumed run goes on exactly where it stopped.
  std::vector<std::string> outcomes;
  for (const auto& it : its) outcomes.push_back(it.outcome);
  CHECK(outcomes == kFixedThenPass);
  CHECK(attempt_of(*db, s.run_id, "blas/saxpy").status == "solved");
  std::set<std::tuple<int64_t, int, int>> keys;
  for (auto rows = db->evaluations(s.run_id); const auto& e : *rows) CHECK(keys.insert({e.attempt_id, e.iteration, e.step}).second);
  CHECK(db->load_run(s.run_id)->sessions == 2);
  const auto replayed = obs2.iterations();
  REQUIRE(!replayed.empty());
  CHECK(replayed[0].replayed);
}

TEST_CASE("on a CPU platform a timing job runs alone: no compile or check of another attempt overlaps it") {
  // Tools that take a while and record what runs at the same time as what.
  struct OverlapTools final : agent::ToolBackend {
    std::atomic<int> untimed{0}, timed{0}, overlaps{0}, timed_jobs{0}, most_untimed{0};
    bool lint_available() const override { return false; }
    LintOutcome lint(const std::string&, const Task&, const Platform&) override { return {}; }
    CompileOutput compile(const std::string&, const Task&, const Platform&) override { return {}; }
    Verdict evaluate(const std::string&, const Task& task, const Platform& platform, const EvalOptions& options) override {
      std::atomic<int>& mine = options.time ? timed : untimed;
      const int now = ++mine;
      if (!options.time) most_untimed = std::max(most_untimed.load(), now);
      if (options.time) ++timed_jobs;
      for (int i = 0; i < 20; ++i) {
        if (timed > 0 && untimed > 0) ++overlaps;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      --mine;
      Verdict v;
      v.task = task.id;
      v.platform = platform.name;
      v.outcome = Outcome::Passed;
      v.stage = Stage::Done;
      v.summary = "passed";
      return v;
    }
  };
  auto tools = std::make_shared<OverlapTools>();
  const std::string dir = fresh_dir("timing-alone");
  agent::RunOptions o;
  o.config = oracle_config(dir + "/runs.db", "blas/saxpy,vllm/silu_and_mul,vllm/rms_norm,aten/add", 0, 0);
  o.config.policy = "sample";
  o.config.policies["sample"] = {{"n", 2}};
  o.config.concurrency = 4;
  o.config.evaluation.jobs = 2;
  o.config.evaluation.time = true;
  o.config.oracle.latency_min_ms = 0;  // replies spread out, so checks arrive while others are timed
  o.config.oracle.latency_max_ms = 1000;
  o.tools = tools;
  const agent::RunSummary s = run_to_end(o);
  CHECK(s.attempts_solved == 4);
  CHECK(tools->timed_jobs.load() == 8);  // every sample is correct, so every one is profiled
  CHECK(tools->overlaps.load() == 0);
  MESSAGE("most checks at once: " << tools->most_untimed.load());
}
