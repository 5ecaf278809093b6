// A custom policy, registered from outside the loop library: fresh samples at
// rising temperatures. Each rung starts from the task again (no conversation
// history), saying how many attempts came before ("[N earlier attempts ...
// left out ...]", which the oracle counts) and, with a one-line hint, the
// previous rung's error. It stops at the first correct kernel or when the
// ladder ends.
//
// Parameters ([policy.temperature-ladder] in a config, --param on the command line):
//   temperatures  the ladder, e.g. [0.0, 0.4, 0.8, 1.2]
//   hint          add the previous error to the next prompt
#include "kgb/agent/policy.h"

namespace {

using namespace kgb;
using namespace kgb::agent;

class TemperatureLadder final : public Policy {
 public:
  explicit TemperatureLadder(nlohmann::json params) : params_(std::move(params)) {}

  boost::asio::awaitable<AttemptEnd> run(AttemptContext& ctx) override {
    auto opening = ctx.opening_messages();
    if (!opening) co_return AttemptEnd{"prompt-error", {{"error", opening.error().message}}};
    const bool hint = params_.value("hint", true);
    std::string previous_error;
    int rung = 0;
    for (const auto& t : params_["temperatures"]) {
      if (auto stop = ctx.budget_stop()) co_return AttemptEnd{stop->reason()};
      auto it = ctx.begin_iteration();
      std::vector<llm::Message> messages = opening.value();
      if (rung > 0)
        messages.back().content += "\n\n[" + std::to_string(rung) + " earlier attempts are left out of this conversation]";
      ++rung;
      if (hint && !previous_error.empty())
        messages.back().content += "\n\nA previous attempt failed with: " + previous_error + ". Avoid that mistake.";
      llm::ChatRequest request = ctx.make_request(std::move(messages));
      request.temperature = t.get<double>();
      nlohmann::json detail = {{"temperature", t}};
      ChatResult reply = co_await it->chat(std::move(request));
      if (!reply.called) {
        it->finish({"budget", "", false, 0, "", "", detail});
        co_return AttemptEnd{reply.budget->reason()};
      }
      if (!reply.ok) {
        it->finish({"llm-error", "", false, 0, "", reply.error_kind, detail});
        continue;
      }
      const ExtractedCode code = ctx.extract(reply);
      if (code.status != ExtractStatus::Ok) {
        previous_error = std::string(extract_status_name(code.status));
        it->finish({previous_error, "", false, 0, "", previous_error, detail});
        continue;
      }
      const KernelCheck check = co_await ctx.check_kernel(*it, code.code);
      previous_error = error_signature(check.last());
      it->finish({check.last().outcome, code.code, check.correct(), check.speedup(), "", previous_error, detail});
      if (check.correct()) co_return AttemptEnd{"correct", detail};
    }
    co_return AttemptEnd{"ladder-done"};
  }

 private:
  nlohmann::json params_;
};

}  // namespace

KGB_REGISTER_POLICY(temperature_ladder,
                    PolicyInfo{"temperature-ladder",
                               "fresh samples at rising temperatures, each with a hint of the previous error",
                               {{"temperatures", {0.0, 0.4, 0.8, 1.2}}, {"hint", true}},
                               [](const nlohmann::json& params) -> Result<std::unique_ptr<Policy>> {
                                 const auto& ts = params["temperatures"];
                                 if (!ts.is_array() || ts.empty())
                                   return make_error("policy.params", "temperature-ladder: temperatures must be a non-empty list");
                                 for (const auto& t : ts)
                                   if (!t.is_number() || t.get<double>() < 0)
                                     return make_error("policy.params", "temperature-ladder: temperatures must be numbers >= 0");
                                 return std::unique_ptr<Policy>(new TemperatureLadder(params));
                               }});
