// What a run sends to a provider besides the conversation: provider-specific
// request fields from the configuration, and the API key rules for servers of
// one's own (none needed locally; a refusal names the variable to set).
#include <doctest/doctest.h>

#include <cstdlib>

#include "agent_fixtures.h"
#include "kgb/agent/config.h"
#include "kgb/store/run_store.h"

using namespace kgb;
using namespace kgb::test;

namespace {

// A model that never writes code, so every iteration is one call.
Reply chatter(const RecordedRequest&, int) { return openai_reply("Nothing to show yet."); }

}  // namespace

TEST_CASE("provider-specific request fields from the configuration reach every request") {
  ScriptedServer server(chatter);
  const std::string dir = fresh_dir("provider-extra");
  auto parsed = agent::parse_config_toml(R"(
[provider]
extra = { top_k = 40, logit_bias = { "50256" = -100 }, chat_template_kwargs = { enable_thinking = false } }
)",
                                         "extra.toml");
  REQUIRE(parsed.ok());
  agent::RunOptions o;
  o.config = scripted_config(dir + "/runs.db", "blas/saxpy", server.base_url());
  o.config.provider.extra = parsed->provider.extra;
  o.config.policies["refine"] = {{"max_iterations", 2}};
  const agent::RunSummary s = run_to_end(o);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  for (const auto& r : requests) {
    const auto body = nlohmann::json::parse(r.body);
    CHECK(body["top_k"] == 40);
    CHECK(body["logit_bias"]["50256"] == -100);
    CHECK(body["chat_template_kwargs"]["enable_thinking"] == false);
  }
  // Recorded with the run (so a resume sends them too) and with each call.
  auto db = store::RunStore::open(o.config.store);
  REQUIRE(db.ok());
  CHECK((*db)->load_run(s.run_id)->config["provider"]["extra"]["top_k"] == 40);
  const auto a = attempt_of(**db, s.run_id, "blas/saxpy");
  CHECK((*db)->find_llm_call(a.id, 0, 0).value()->request["extra"]["top_k"] == 40);

  auto wrong = agent::parse_config_toml("[provider]\nextra = 3\n", "bad.toml");
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message.find("extra must be a table") != std::string::npos);
}

TEST_CASE("--provider openai with a local base URL runs without OPENAI_API_KEY and sends no key") {
  const char* saved = std::getenv("OPENAI_API_KEY");
  const std::string saved_value = saved ? saved : "";
  unsetenv("OPENAI_API_KEY");
  ScriptedServer server(chatter);
  const std::string dir = fresh_dir("provider-keyless");
  agent::RunOptions o;
  o.config = scripted_config(dir + "/runs.db", "blas/saxpy", server.base_url(), "local-model");
  o.config.provider.name = "openai";
  o.config.policies["refine"] = {{"max_iterations", 1}};
  const agent::RunSummary s = run_to_end(o);
  CHECK(s.status == "finished");
  CHECK(s.error.empty());
  const auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].header("authorization").empty());

  // A server that does want a key: the run stops at once and says which variable to set.
  ScriptedServer guarded([](const RecordedRequest&, int) {
    return Reply::json(401, R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}})");
  });
  agent::RunOptions g;
  g.config = scripted_config(fresh_dir("provider-401") + "/runs.db", "blas/saxpy,vllm/silu_and_mul", guarded.base_url(), "m");
  g.config.provider.name = "openai";
  const agent::RunSummary refused = run_to_end(g);
  CHECK(refused.status == "failed");
  CHECK(refused.error.find("set OPENAI_API_KEY") != std::string::npos);
  CHECK(guarded.requests().size() == 1);
  if (saved) setenv("OPENAI_API_KEY", saved_value.c_str(), 1);
}
