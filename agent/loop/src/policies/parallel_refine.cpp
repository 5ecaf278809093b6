// parallel-refine: n seeds x r rounds. Every seed is its own conversation,
// refined with feedback; the seeds of a round run concurrently. After the
// first round in which some seed is correct, the first correct seed (lowest
// index) continues alone into optimisation (when target_speedup is set) for
// up to optimize_rounds more iterations; the others stop.
#include "step.h"

namespace kgb::agent::policies {

namespace {

class ParallelRefine final : public Policy {
 public:
  explicit ParallelRefine(nlohmann::json params) : p_(std::move(params)) {}

  boost::asio::awaitable<AttemptEnd> run(AttemptContext& ctx) override {
    const int seeds = param_int(p_, "seeds", 4);
    const int rounds = param_int(p_, "rounds", 3);
    const double target = param_double(p_, "target_speedup", 0);
    const int optimize_rounds = param_int(p_, "optimize_rounds", 2);
    auto opening = ctx.opening_messages();
    if (!opening) co_return AttemptEnd{"prompt-error", {{"error", opening.error().message}}};
    std::vector<Conversation> conversations;
    for (int s = 0; s < seeds; ++s) conversations.emplace_back(opening.value(), param_int(p_, "history", 2));

    int winner = -1;
    std::optional<BudgetStop> stopped;
    for (int round = 0; round < rounds && winner < 0 && !stopped; ++round) {
      std::vector<StepOutcome> outcomes(static_cast<size_t>(seeds));
      std::vector<std::function<boost::asio::awaitable<void>()>> jobs;
      for (int s = 0; s < seeds; ++s) {
        if (auto stop = ctx.budget_stop()) {
          stopped = stop;
          break;
        }
        auto it = std::make_shared<std::unique_ptr<Iteration>>(ctx.begin_iteration("seed-" + std::to_string(s)));
        jobs.push_back([this, &ctx, &conversations, &outcomes, s, round, target, it]() -> boost::asio::awaitable<void> {
          // A correct kernel below the target gets speed feedback in its conversation,
          // which the winner then continues.
          // (Built step by step: GCC 12 miscompiles braced JSON in co_await arguments.)
          nlohmann::json detail = nlohmann::json::object();
          detail["seed"] = s;
          detail["round"] = round;
          detail["phase"] = "search";
          outcomes[static_cast<size_t>(s)] =
              co_await generate_and_check(ctx, **it, conversations[static_cast<size_t>(s)], p_, target, std::move(detail));
        });
      }
      co_await ctx.run_all(std::move(jobs));
      for (int s = 0; s < seeds; ++s) {
        const auto& o = outcomes[static_cast<size_t>(s)];
        if (o.budget && !stopped) stopped = o.budget;
        if (o.correct && winner < 0) winner = s;
      }
    }
    if (winner < 0) {
      if (stopped) co_return AttemptEnd{stopped->reason()};
      co_return AttemptEnd{"rounds-done"};
    }
    nlohmann::json detail = {{"winner_seed", winner}};
    if (target <= 0) co_return AttemptEnd{"correct", detail};
    if (const auto& best = ctx.best(); best && best->speedup >= target) co_return AttemptEnd{"target-speedup", detail};
    // The winner's conversation ends with its correct kernel and the request for speed.
    Conversation& conv = conversations[static_cast<size_t>(winner)];
    for (int round = 0; round < optimize_rounds; ++round) {
      if (auto stop = ctx.budget_stop()) co_return AttemptEnd{stop->reason(), detail};
      auto it = ctx.begin_iteration("seed-" + std::to_string(winner));
      nlohmann::json step_detail = nlohmann::json::object();
      step_detail["seed"] = winner;
      step_detail["round"] = round;
      step_detail["phase"] = "optimize";
      const StepOutcome step = co_await generate_and_check(ctx, *it, conv, p_, target, std::move(step_detail));
      if (step.budget) co_return AttemptEnd{step.budget->reason(), detail};
      if (step.target_reached) co_return AttemptEnd{"target-speedup", detail};
    }
    co_return AttemptEnd{"optimize-rounds-done", detail};
  }

 private:
  nlohmann::json p_;
};

}  // namespace

PolicyInfo parallel_refine_policy() {
  return {"parallel-refine",
          "n seeds x r rounds of refinement; the first correct seed continues into optimisation",
          {{"seeds", 4}, {"rounds", 3}, {"target_speedup", 0.0}, {"optimize_rounds", 2}, {"history", 2}, {"temperature", 0.8}},
          [](const nlohmann::json& params) -> Result<std::unique_ptr<Policy>> {
            if (param_int(params, "seeds", 4) < 1 || param_int(params, "rounds", 3) < 1)
              return make_error("policy.params", "parallel-refine: seeds and rounds must be at least 1");
            return std::unique_ptr<Policy>(new ParallelRefine(params));
          }};
}

}  // namespace kgb::agent::policies
