// sample: n independent samples per attempt at a temperature, no feedback.
// Each sample is its own conversation; the best kernel is kept. The samples
// run concurrently unless stop_on_correct asks for them one after another.
#include "common.h"

namespace kgb::agent::policies {

namespace {

class Sample final : public Policy {
 public:
  explicit Sample(nlohmann::json params) : p_(std::move(params)) {}

  boost::asio::awaitable<AttemptEnd> run(AttemptContext& ctx) override {
    const int n = param_int(p_, "n", 1);
    const bool stop_on_correct = param_bool(p_, "stop_on_correct", false);
    auto opening = ctx.opening_messages();
    if (!opening) co_return AttemptEnd{"prompt-error", {{"error", opening.error().message}}};
    const std::vector<llm::Message> messages = std::move(opening.value());

    std::optional<BudgetStop> refused;
    auto one = [&](std::unique_ptr<Iteration> it) -> boost::asio::awaitable<bool> {
      llm::ChatRequest request = ctx.make_request(messages);
      apply_temperature(request, p_);
      nlohmann::json detail = {{"sample", it->index()}};
      ChatResult chat = co_await it->chat(std::move(request));
      if (!chat.called) {
        if (!refused) refused = chat.budget;
        detail["summary"] = chat.budget->message;
        it->finish({"budget", "", false, 0, "", "", detail});
        co_return false;
      }
      if (!chat.ok) {
        detail["summary"] = chat.error_kind + ": " + chat.error_message;
        it->finish({"llm-error", "", false, 0, "", "llm-error: " + chat.error_kind, detail});
        co_return false;
      }
      const ExtractedCode code = ctx.extract(chat);
      if (code.status != ExtractStatus::Ok) {
        const std::string outcome(extract_status_name(code.status));
        detail["summary"] = code.note;
        it->finish({outcome, code.status == ExtractStatus::Binary ? "" : code.code, false, 0, "", outcome, detail});
        co_return false;
      }
      const KernelCheck kc = co_await ctx.check_kernel(*it, code.code);
      detail["summary"] = kc.last().summary;
      it->finish({kc.last().outcome, code.code, kc.correct(), kc.speedup(), "", error_signature(kc.last()), detail});
      co_return kc.correct();
    };

    if (stop_on_correct) {
      for (int i = 0; i < n; ++i) {
        if (auto stop = ctx.budget_stop()) co_return AttemptEnd{stop->reason()};
        if (co_await one(ctx.begin_iteration("sample-" + std::to_string(i)))) co_return AttemptEnd{"correct"};
        if (refused) co_return AttemptEnd{refused->reason()};
      }
      co_return AttemptEnd{"samples-done"};
    }
    // Open every iteration first (a fixed order), then run them together.
    std::vector<std::function<boost::asio::awaitable<void>()>> jobs;
    std::optional<BudgetStop> stopped;
    for (int i = 0; i < n; ++i) {
      if (auto stop = ctx.budget_stop()) {
        stopped = stop;
        break;
      }
      auto it = std::make_shared<std::unique_ptr<Iteration>>(ctx.begin_iteration("sample-" + std::to_string(i)));
      jobs.push_back([&one, it]() -> boost::asio::awaitable<void> { co_await one(std::move(*it)); });
    }
    co_await ctx.run_all(std::move(jobs));
    if (stopped) co_return AttemptEnd{stopped->reason()};
    if (refused) co_return AttemptEnd{refused->reason()};
    co_return AttemptEnd{"samples-done"};
  }

 private:
  nlohmann::json p_;
};

}  // namespace

PolicyInfo sample_policy() {
  return {"sample",
          "n independent samples at a temperature, no feedback; the best kernel counts",
          {{"n", 1}, {"temperature", 0.8}, {"stop_on_correct", false}},
          [](const nlohmann::json& params) -> Result<std::unique_ptr<Policy>> {
            if (param_int(params, "n", 1) < 1) return make_error("policy.params", "sample: n must be at least 1");
            return std::unique_ptr<Policy>(new Sample(params));
          }};
}

}  // namespace kgb::agent::policies
