// One generate-and-check iteration, shared by refine and parallel-refine:
// ask the model, extract the kernel, run it (and profile it when correct),
// write the feedback into the conversation and finish the iteration.
#pragma once

#include "common.h"

namespace kgb::agent::policies {

struct StepOutcome {
  std::optional<BudgetStop> budget;  // the call was refused
  bool llm_error = false;
  std::string outcome;               // the iteration's outcome
  bool correct = false;
  double speedup = 0;
  bool target_reached = false;       // correct and (no target or speedup >= target)
  std::string signature;             // error signature ("" when correct)
};

// `target_speedup` <= 0: a correct kernel ends the line of work (no speed feedback).
boost::asio::awaitable<StepOutcome> generate_and_check(AttemptContext& ctx, Iteration& iteration, Conversation& conversation,
                                                       const nlohmann::json& params, double target_speedup,
                                                       nlohmann::json detail = nlohmann::json::object());

}  // namespace kgb::agent::policies
