// The profiler's summary in the agent's feedback (issue 22): the tool-agent
// policy against the oracle server on cpu-x86_64 and opencl-pocl, with the
// threshold set so that every correct kernel counts as slower than its
// baseline. The profile tool's result carries the platform profiler's
// summary, the model's next request shows it as "profile:" lines, and the run
// store keeps the full profile.
#include <doctest/doctest.h>

#include "agent_fixtures.h"
#include "kgb/platform.h"

using namespace kgb;
using namespace kgb::test;

TEST_CASE("tool-agent against the oracle: the profile tool returns the profiler's summary on every runnable platform") {
  for (const std::string platform : {"cpu-x86_64", "opencl-pocl"}) {
    CAPTURE(platform);
    auto p = load_platform(platform);
    REQUIRE(p);
    if (auto a = check_availability(*p); !a.available) {
      MESSAGE("skipped " << platform << ": " << a.reason);
      continue;
    }
    agent::RunOptions o;
    o.config = oracle_config(fresh_dir("tool-profile-" + platform) + "/runs.db", "blas/saxpy", 0, 0);
    o.config.platform = platform;
    o.config.policy = "tool-agent";
    o.config.evaluation.time = true;
    o.config.evaluation.baseline = true;
    o.config.evaluation.time_budget_seconds = 0.2;
    o.config.evaluation.timing_pairs = 1;  // the profile is under test, not the timing: one block each
    o.config.evaluation.profile_below = 1e9;  // every correct kernel is "slower than its baseline"
    const agent::RunSummary s = run_to_end(o);
    CHECK(s.tasks_solved == 1);
    auto db = store::RunStore::open(o.config.store);
    REQUIRE(db.ok());
    const auto attempt = attempt_of(**db, s.run_id, "blas/saxpy");
    CHECK(attempt.status == "solved");
    // The profile tool call and what the model was sent next.
    bool profiled = false, fed_back = false;
    for (const auto& it : iterations_of(**db, s.run_id, "blas/saxpy")) {
      for (int step = 0; step < 8; ++step) {
        auto call = *(*db)->find_tool_call(attempt.id, it.index, step);
        if (!call || call->tool != "profile") continue;
        profiled = true;
        const auto& profiler = call->result["data"]["profiler"];
        INFO(profiler.dump(2).substr(0, 4000));
        REQUIRE(profiler.is_object());
        CHECK(profiler["platform"] == platform);
        CHECK(profiler["error"] == "");
        REQUIRE(profiler["summary"].size() >= 2);
        // The first line places the kernel on the roofline; the next say what the tools saw.
        const std::string first = profiler["summary"][0];
        CHECK(first.find("GB/s") != std::string::npos);
        CHECK(first.find("of peak bandwidth") != std::string::npos);
        const std::string tools = profiler["summary"].dump();
        if (platform == "cpu-x86_64") CHECK((tools.find("Cache simulation") != std::string::npos || tools.find("Counters per call") != std::string::npos));
        else CHECK(tools.find("kernel(s) per call") != std::string::npos);
        CHECK(profiler.contains("counters"));
        CHECK(profiler.contains("logs"));
      }
      auto llm = *(*db)->find_llm_call(attempt.id, it.index, 0);
      if (llm && llm->request.dump().find("profile: ") != std::string::npos) fed_back = true;
    }
    CHECK(profiled);
    CHECK(fed_back);
  }
}
