// Garbage from the model ends as recorded iteration outcomes, never a crash:
// prose without code, code cut off at the token limit, a megabyte of text,
// binary, a body that is not JSON; then a good reply wrapped in prose with
// several blocks passes.
#include <doctest/doctest.h>

#include "agent_fixtures.h"
#include "kgb/store/run_store.h"

using namespace kgb;
using namespace kgb::test;

TEST_CASE("garbage replies are iteration outcomes, recorded, and the attempt goes on") {
  const std::string good = bundled_cpu_solution("blas/saxpy");
  std::string megabyte;
  while (megabyte.size() < (1u << 20)) megabyte += "All work and no play makes a dull kernel. ";
  std::string binary;
  for (int i = 0; i < 4096; ++i) binary += static_cast<char>((i * 37) % 32);  // NULs and control bytes
  const std::string truncated = "Sure:\n\n```cpp\n#include \"kgb_kernel.h\"\nextern \"C\" int kgb_blas_saxpy(const kgb_tensor* x) {\n  for (int i = 0;";
  const std::string several_blocks = "First, how it is called:\n\n```c\nkgb_blas_saxpy(x, y, alpha, out, stream);\n```\n\n"
                                     "And the kernel:\n\n```cpp\n" + good + "```\n\nThat is all.";
  ScriptedServer server([&](const RecordedRequest&, int index) {
    switch (index) {
      case 0: return openai_reply("I think the best approach is a fused loop, vectorised.");
      case 1: return openai_reply(truncated, "length");
      case 2: return openai_reply(megabyte);
      case 3: return openai_reply(binary);
      case 4: return Reply::json(200, "this is not JSON {{{");
      default: return openai_reply(several_blocks);
    }
  });
  const std::string dir = fresh_dir("garbage");
  agent::RunOptions o;
  o.config = scripted_config(dir + "/runs.db", "blas/saxpy", server.base_url());
  o.config.policy = "refine";
  o.config.policies["refine"] = {{"max_iterations", 8}, {"max_failed_fixes", 100}};
  const agent::RunSummary s = run_to_end(o);
  CHECK(s.status == "finished");
  auto db = store::RunStore::open(o.config.store);
  REQUIRE(db.ok());
  const auto a = attempt_of(**db, s.run_id, "blas/saxpy");
  CHECK(a.status == "solved");
  const auto its = *(*db)->iterations(a.id);
  std::vector<std::string> outcomes;
  for (const auto& it : its) outcomes.push_back(it.outcome);
  CHECK(outcomes == std::vector<std::string>{"no-code", "truncated-code", "no-code", "binary-reply", "llm-error", "passed"});
  CHECK(its[0].feedback.find("no usable source code") != std::string::npos);
  CHECK(its[1].feedback.find("cut off") != std::string::npos);
  CHECK(its[4].detail["summary"].get<std::string>().find("malformed") != std::string::npos);
  // The megabyte is recorded as it came, but never sent back whole.
  auto big = *(*db)->find_llm_call(a.id, 2, 0);
  REQUIRE(big.has_value());
  CHECK(big->response_text.size() >= (1u << 20));
  auto next = *(*db)->find_llm_call(a.id, 3, 0);
  REQUIRE(next.has_value());
  CHECK(next->request.dump().size() < 120 * 1024);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 6);
  CHECK(requests[3].body.size() < 120 * 1024);
  // The kernel of the last iteration is the block that defines the entry.
  CHECK(*(*db)->kernel(its[5].kernel) == good);
}
