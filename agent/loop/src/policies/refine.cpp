// refine: generate -> lint -> compile -> run -> profile -> feed back, in one
// conversation. Keeps the best kernel so far; stops when a kernel is correct
// (and reaches target_speedup when one is set) or a budget is spent. When the
// same error survives `max_failed_fixes` fixes in a row, the approach is
// abandoned: the conversation starts over with a note naming the error, at
// most `max_restarts` times.
#include "step.h"

namespace kgb::agent::policies {

namespace {

class Refine final : public Policy {
 public:
  explicit Refine(nlohmann::json params) : p_(std::move(params)) {}

  boost::asio::awaitable<AttemptEnd> run(AttemptContext& ctx) override {
    const int max_iterations = param_int(p_, "max_iterations", 5);
    const double target = param_double(p_, "target_speedup", 0);
    const int max_failed_fixes = param_int(p_, "max_failed_fixes", 3);
    const int max_restarts = param_int(p_, "max_restarts", 1);
    const int max_llm_errors = param_int(p_, "max_llm_errors", 3);
    auto opening = ctx.opening_messages();
    if (!opening) co_return AttemptEnd{"prompt-error", {{"error", opening.error().message}}};
    Conversation conv(std::move(opening.value()), param_int(p_, "history", 2));

    std::string last_signature;
    int repeats = 0, restarts = 0, llm_errors = 0;
    for (;;) {
      if (auto stop = ctx.budget_stop()) co_return AttemptEnd{stop->reason(), {{"message", stop->message}}};
      if (ctx.iterations_started() >= max_iterations) co_return AttemptEnd{"max-iterations"};
      auto it = ctx.begin_iteration();
      nlohmann::json detail = {{"restarts", restarts}};
      const StepOutcome step = co_await generate_and_check(ctx, *it, conv, p_, target, detail);
      if (step.budget) co_return AttemptEnd{step.budget->reason(), {{"message", step.budget->message}}};
      if (step.llm_error) {
        if (++llm_errors >= max_llm_errors) co_return AttemptEnd{"llm-error"};
        continue;
      }
      llm_errors = 0;
      if (step.target_reached) co_return AttemptEnd{target > 0 ? "target-speedup" : "correct"};
      if (step.correct) {
        // Correct but slower than the target: the feedback asked for speed.
        last_signature.clear();
        repeats = 0;
        continue;
      }
      repeats = step.signature == last_signature ? repeats + 1 : 0;
      last_signature = step.signature;
      if (repeats >= max_failed_fixes) {
        if (restarts >= max_restarts) co_return AttemptEnd{"abandoned", {{"error", step.signature}}};
        ++restarts;
        auto note = ctx.render("feedback/restart", {{"previous_error", step.signature},
                                                    {"failed_fixes", std::to_string(repeats)}});
        conv.restart(note ? *note : "");
        last_signature.clear();
        repeats = 0;
      }
    }
  }

 private:
  nlohmann::json p_;
};

}  // namespace

PolicyInfo refine_policy() {
  return {"refine",
          "iterative refinement: feedback from lint, compile, run and profile in one conversation; keeps the best kernel",
          {{"max_iterations", 5},
           {"target_speedup", 0.0},
           {"max_failed_fixes", 3},
           {"max_restarts", 1},
           {"max_llm_errors", 3},
           {"history", 2},
           {"temperature", nullptr}},
          [](const nlohmann::json& params) -> Result<std::unique_ptr<Policy>> {
            if (param_int(params, "max_iterations", 5) < 1) return make_error("policy.params", "refine: max_iterations must be at least 1");
            if (param_int(params, "max_failed_fixes", 3) < 1)
              return make_error("policy.params", "refine: max_failed_fixes must be at least 1");
            return std::unique_ptr<Policy>(new Refine(params));
          }};
}

}  // namespace kgb::agent::policies
