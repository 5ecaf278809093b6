#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "kgb/llm/pricing.h"
#include "kgb/llm/retry.h"
#include "kgb/llm/secrets.h"

using namespace kgb::llm;
using namespace std::chrono;

TEST_CASE("retry-after: milliseconds, seconds and HTTP dates") {
  const auto now = system_clock::time_point(seconds(784111777));  // Sun, 06 Nov 1994 08:49:37 GMT
  CHECK(parse_retry_after("250", "", now) == milliseconds(250));
  CHECK(parse_retry_after("12.5", "3", now) == milliseconds(13));  // -ms wins, rounded up
  CHECK(parse_retry_after("", "2", now) == milliseconds(2000));
  CHECK(parse_retry_after("", "0.5", now) == milliseconds(500));
  CHECK(parse_retry_after("", "Sun, 06 Nov 1994 08:49:40 GMT", now) == milliseconds(3000));
  CHECK(parse_retry_after("", "Sunday, 06-Nov-94 08:49:47 GMT", now) == milliseconds(10000));
  CHECK(parse_retry_after("", "Sun Nov  6 08:50:37 1994", now) == milliseconds(60000));
  CHECK(parse_retry_after("", "Sun, 06 Nov 1994 08:00:00 GMT", now) == milliseconds(0));  // past
  CHECK_FALSE(parse_retry_after("", "", now));
  CHECK_FALSE(parse_retry_after("soon", "later", now));
  CHECK_FALSE(parse_retry_after("", "-1", now));
  CHECK(format_http_date(now) == "Sun, 06 Nov 1994 08:49:37 GMT");
  CHECK(parse_http_date(format_http_date(now)) == now);
}

TEST_CASE("retry: statuses and backoff") {
  for (int s : {408, 409, 429, 500, 502, 503, 504, 529}) CHECK(retryable_status(s));
  for (int s : {200, 400, 401, 403, 404, 413, 422}) CHECK_FALSE(retryable_status(s));

  RetryPolicy policy;
  policy.initial_backoff = 100ms;
  policy.multiplier = 2;
  policy.max_backoff = 350ms;
  policy.jitter = 0;
  policy.max_retry_after = 5s;
  Backoff fixed(policy);
  CHECK(fixed.delay(1, std::nullopt) == 100ms);
  CHECK(fixed.delay(2, std::nullopt) == 200ms);
  CHECK(fixed.delay(3, std::nullopt) == 350ms);  // capped
  CHECK(fixed.delay(1, 1200ms) == 1200ms);       // server's wish wins
  CHECK(fixed.delay(1, 60s) == 5s);              // ...up to the cap

  policy.jitter = 0.5;
  policy.seed = 42;
  Backoff jittered(policy);
  Backoff same_seed(policy);
  bool varied = false;
  milliseconds first = jittered.delay(1, std::nullopt);
  CHECK(same_seed.delay(1, std::nullopt) == first);  // seeded: reproducible
  for (int i = 0; i < 50; ++i) {
    auto d = jittered.delay(2, std::nullopt);
    CHECK(d >= 100ms);
    CHECK(d <= 200ms);
    if (d != first * 2) varied = true;
  }
  CHECK(varied);
}

TEST_CASE("pricing: defaults, prefixes, overrides and cost") {
  PriceTable table = PriceTable::defaults();
  CHECK(table.size() > 10);
  auto gpt4o = table.find("gpt-4o-2024-08-06");
  REQUIRE(gpt4o);
  CHECK(gpt4o->input == doctest::Approx(2.5));
  CHECK(table.find("gpt-4o-mini-2024-07-18")->input == doctest::Approx(0.15));  // longest prefix
  CHECK(table.find("openrouter/anthropic/claude-sonnet-4-5")->output == doctest::Approx(15));
  CHECK(table.find("oracle")->output == 0);
  CHECK_FALSE(table.find("unknown-model"));

  Usage usage;
  usage.input_tokens = 1'000'000;
  usage.cached_input_tokens = 400'000;
  usage.output_tokens = 100'000;
  // 600k uncached * 2.5 + 400k cached * 1.25 + 100k * 10, per million
  CHECK(*table.cost("gpt-4o", usage) == doctest::Approx(1.5 + 0.5 + 1.0));

  Usage anthropic;
  anthropic.input_tokens = 3000;  // 1000 plain + 1500 written + 500 read
  anthropic.cache_write_tokens = 1500;
  anthropic.cached_input_tokens = 500;
  anthropic.output_tokens = 1000;
  CHECK(*table.cost("claude-sonnet-4-5-20250929", anthropic) ==
        doctest::Approx((1000 * 3.0 + 1500 * 3.75 + 500 * 0.3 + 1000 * 15.0) / 1e6));

  // Named after this process: the suite may run twice at once on one machine.
  const auto file = std::filesystem::temp_directory_path() / ("kgb-test-prices-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(file);
    out << R"({"models": {"gpt-4o": {"input": 1, "output": 2}, "my-local-*": {"input": 0.1, "output": 0.2}}})";
  }
  REQUIRE(table.merge_file(file));
  CHECK(table.find("gpt-4o")->input == 1);
  CHECK(table.find("gpt-4o")->cached_input == 1);  // defaults to input
  CHECK(table.find("my-local-llama")->output == doctest::Approx(0.2));
  setenv("KGB_PRICES_FILE", file.c_str(), 1);
  auto from_env = PriceTable::from_environment();
  REQUIRE(from_env);
  CHECK(from_env->find("my-local-x"));
  unsetenv("KGB_PRICES_FILE");

  CHECK_FALSE(table.merge_json("{not json", "inline"));
  CHECK_FALSE(table.merge_json(R"({"models": {"m": {"input": -1, "output": 1}}})", "inline"));
  CHECK_FALSE(table.merge_json(R"({"models": {"m": {"input": 1}}})", "inline"));
  CHECK_FALSE(table.merge_file("/nonexistent/prices.json"));
  std::filesystem::remove(file);
}

TEST_CASE("secrets: keys come from the environment and are scrubbed") {
  unsetenv("KGB_TEST_MISSING_KEY");
  auto missing = ApiKey::from_environment("KGB_TEST_MISSING_KEY", true);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("KGB_TEST_MISSING_KEY") != std::string::npos);
  CHECK(ApiKey::from_environment("KGB_TEST_MISSING_KEY", false));

  setenv("KGB_TEST_KEY", "sk-live-abcdefghijklmnopqrstuvwxyz\n", 1);
  auto key = ApiKey::from_environment("KGB_TEST_KEY", true);
  REQUIRE(key);
  CHECK(key->reveal() == "sk-live-abcdefghijklmnopqrstuvwxyz");
  const std::string text = key->redact("bad key sk-live-abcdefghijklmnopqrstuvwxyz given");
  CHECK(text == "bad key [redacted] given");
  CHECK(redact_secrets("Authorization: Bearer abcdefghijklmnop") == "Authorization: Bearer [redacted]");
  CHECK(redact_secrets("Incorrect API key provided: sk-proj-1234567890abcdef.") ==
        "Incorrect API key provided: [redacted].");
  CHECK(redact_secrets("a task named sk-x") == "a task named sk-x");  // too short to be a key
  unsetenv("KGB_TEST_KEY");
}
