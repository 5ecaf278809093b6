#include "step.h"

namespace kgb::agent::policies {

boost::asio::awaitable<StepOutcome> generate_and_check(AttemptContext& ctx, Iteration& it, Conversation& conv,
                                                       const nlohmann::json& params, double target, nlohmann::json detail) {
  StepOutcome out;
  llm::ChatRequest request = ctx.make_request(conv.messages());
  apply_temperature(request, params);
  ChatResult chat = co_await it.chat(std::move(request));
  if (!chat.called) {
    out.budget = chat.budget;
    out.outcome = "budget";
    detail["summary"] = chat.budget->message;
    it.finish({"budget", "", false, 0, "", "", detail});
    co_return out;
  }
  if (!chat.ok) {
    out.llm_error = true;
    out.outcome = "llm-error";
    out.signature = "llm-error: " + chat.error_kind;
    detail["summary"] = chat.error_kind + ": " + chat.error_message;
    it.finish({"llm-error", "", false, 0, "", out.signature, detail});
    co_return out;
  }
  const ExtractedCode code = ctx.extract(chat);
  detail["extract"] = {{"status", extract_status_name(code.status)}, {"blocks", code.blocks}, {"note", code.note}};
  if (code.status != ExtractStatus::Ok) {
    out.outcome = std::string(extract_status_name(code.status));
    out.signature = out.outcome;
    const std::string fb = ctx.feedback(code);
    conv.add_exchange(llm::Message::assistant(reply_for_history(chat, code)), llm::Message::user(fb));
    detail["summary"] = code.note;
    it.finish({out.outcome, code.status == ExtractStatus::Binary ? "" : code.code, false, 0, fb, out.signature, detail});
    co_return out;
  }
  const KernelCheck kc = co_await ctx.check_kernel(it, code.code);
  const ToolResult& last = kc.last();
  out.outcome = last.outcome;
  out.correct = kc.correct();
  out.speedup = kc.speedup();
  out.target_reached = out.correct && (target <= 0 || out.speedup >= target);
  out.signature = out.correct ? "" : error_signature(last);
  std::string fb;
  if (!out.target_reached) {
    TemplateVars extra;
    if (target > 0) extra["target_speedup"] = format_number(target);
    if (const auto& best = ctx.best(); best && best->correct && best->speedup > 0) extra["best_speedup"] = format_number(best->speedup);
    extra["iteration"] = std::to_string(it.index() + 1);
    fb = ctx.feedback(last, extra);
    conv.add_exchange(llm::Message::assistant(reply_for_history(chat, code)), llm::Message::user(fb));
  }
  detail["summary"] = last.summary;
  it.finish({out.outcome, code.code, out.correct, out.speedup, fb, out.signature, detail});
  co_return out;
}

}  // namespace kgb::agent::policies
