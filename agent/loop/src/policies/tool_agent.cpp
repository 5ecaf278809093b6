// tool-agent: native function calling. The model gets lint, compile, run,
// profile and submit as tools and decides itself what to call; each result
// goes back as a tool message (compact key: value text). A submitted kernel
// that passes ends the attempt. A reply with code but no tool call counts as
// a submission (models without function calling still work); a reply with
// neither gets a nudge. A call cut off at the output limit is never made nor
// replayed (its arguments are an unfinished JSON text that servers reject):
// the model is told it was cut off.
#include "common.h"

namespace kgb::agent::policies {

namespace {

llm::ToolSpec tool_spec(ToolKind kind) {
  static const char* const kDescriptions[] = {
      "Static checks of a candidate source: parse errors, the entry signature and the anti-cheating rules.",
      "Compile and link a candidate source with the platform's toolchain; returns the compiler diagnostics.",
      "Compile and run a candidate on every correctness case; returns per-case results with the first mismatch.",
      "Check a candidate, then time it against the baseline: median time per case, speedup, roofline fraction.",
      "Submit the final kernel. It is evaluated like `profile`; a passing submission ends the task."};
  llm::ToolSpec spec;
  spec.name = std::string(tool_name(kind));
  spec.description = kDescriptions[static_cast<int>(kind)];
  spec.parameters = {{"type", "object"},
                     {"properties", {{"source", {{"type", "string"}, {"description", "the complete source file of the kernel"}}}}},
                     {"required", {"source"}}};
  return spec;
}

class ToolAgent final : public Policy {
 public:
  explicit ToolAgent(nlohmann::json params) : p_(std::move(params)) {}

  boost::asio::awaitable<AttemptEnd> run(AttemptContext& ctx) override {
    const int max_turns = param_int(p_, "max_turns", 12);
    const bool implicit_submit = param_bool(p_, "implicit_submit", true);
    std::vector<ToolKind> kinds;
    for (const auto& name : p_.value("tools", nlohmann::json::array()))
      if (name.is_string())
        if (auto k = tool_from_name(name.get<std::string>())) kinds.push_back(*k);
    if (std::find(kinds.begin(), kinds.end(), ToolKind::Submit) == kinds.end()) kinds.push_back(ToolKind::Submit);
    std::string tool_list;
    for (ToolKind k : kinds) tool_list += (tool_list.empty() ? "" : ", ") + std::string(tool_name(k));

    auto system = ctx.render("tool_agent/system", {{"tools", tool_list}});
    if (!system) co_return AttemptEnd{"prompt-error", {{"error", system.error().message}}};
    auto task = ctx.render("task");
    if (!task) co_return AttemptEnd{"prompt-error", {{"error", task.error().message}}};
    std::vector<llm::Message> messages = {llm::Message::system(*system), llm::Message::user(*task)};
    std::vector<llm::ToolSpec> specs;
    for (ToolKind k : kinds) specs.push_back(tool_spec(k));

    int llm_errors = 0;
    for (;;) {
      if (auto stop = ctx.budget_stop()) co_return AttemptEnd{stop->reason()};
      if (ctx.iterations_started() >= max_turns) co_return AttemptEnd{"max-turns"};
      auto it = ctx.begin_iteration();
      llm::ChatRequest request = ctx.make_request(messages);
      request.tools = specs;
      apply_temperature(request, p_);
      ChatResult chat = co_await it->chat(std::move(request));
      nlohmann::json detail = nlohmann::json::object();
      if (!chat.called) {
        detail["summary"] = chat.budget->message;
        it->finish({"budget", "", false, 0, "", "", detail});
        co_return AttemptEnd{chat.budget->reason()};
      }
      if (!chat.ok) {
        detail["summary"] = chat.error_kind + ": " + chat.error_message;
        it->finish({"llm-error", "", false, 0, "", "llm-error: " + chat.error_kind, detail});
        if (++llm_errors >= 3) co_return AttemptEnd{"llm-error"};
        continue;
      }
      llm_errors = 0;

      if (chat.tool_calls.empty()) {
        const ExtractedCode code = ctx.extract(chat);
        llm::Message reply = llm::Message::assistant(reply_for_history(chat, code));
        if (code.status != ExtractStatus::Ok || !implicit_submit) {
          const std::string outcome(code.status == ExtractStatus::Ok ? "no-tool-call" : extract_status_name(code.status));
          std::string fb;
          if (code.status == ExtractStatus::Truncated) fb = ctx.feedback(code);
          else if (auto n = ctx.render("tool_agent/nudge", {{"tools", tool_list}, {"note", code.note}})) fb = *n;
          messages.push_back(std::move(reply));
          messages.push_back(llm::Message::user(fb));
          detail["summary"] = code.note.empty() ? "a reply without a tool call" : code.note;
          it->finish({outcome, "", false, 0, fb, outcome, detail});
          continue;
        }
        nlohmann::json implicit = nlohmann::json::object();
        implicit["implicit"] = true;
        const ToolResult result = co_await it->tool(ToolKind::Submit, code.code, "", std::move(implicit));
        ctx.offer({it->index(), code.code, result.correct, result.speedup, result.outcome});
        detail["summary"] = result.summary;
        detail["implicit_submit"] = true;
        if (result.correct) {
          it->finish({result.outcome, code.code, true, result.speedup, "", "", detail});
          co_return AttemptEnd{"submitted"};
        }
        const std::string fb = ctx.feedback(result);
        messages.push_back(std::move(reply));
        messages.push_back(llm::Message::user(fb));
        it->finish({result.outcome, code.code, false, 0, fb, error_signature(result), detail});
        continue;
      }

      // The last call of a reply cut off at the output limit is unfinished.
      std::optional<llm::ToolCall> cut_call;
      if (chat.cut_off()) {
        cut_call = chat.tool_calls.back();
        chat.tool_calls.pop_back();
      }
      if (chat.tool_calls.empty()) {
        const std::string note = "the call to `" + cut_call->name + "` ended after " +
                                 std::to_string(cut_call->arguments.size()) + " characters of arguments";
        auto fb = ctx.render("tool_agent/truncated", {{"tools", tool_list}, {"note", note}});
        const std::string text = fb ? *fb : "Your reply was cut off at the output limit (" + note +
                                                "), so that call was not made. Call the tool again with a shorter complete file.";
        if (!chat.text.empty()) messages.push_back(llm::Message::assistant(chat.text));
        messages.push_back(llm::Message::user(text));
        detail["summary"] = note;
        detail["cut_tool_call"] = cut_call->name;
        it->finish({"truncated-tool-call", "", false, 0, text, "truncated-tool-call", detail});
        continue;
      }

      llm::Message reply = llm::Message::assistant(chat.text);
      reply.tool_calls = chat.tool_calls;
      messages.push_back(std::move(reply));
      nlohmann::json calls = nlohmann::json::array();
      std::string last_outcome = "tool-calls", last_source, last_signature, last_text;
      bool submitted_ok = false;
      double last_speedup = 0;
      for (const auto& call : chat.tool_calls) {
        std::string answer;
        auto kind = tool_from_name(call.name);
        auto args = nlohmann::json::parse(call.arguments, nullptr, false);
        if (!kind || std::find(kinds.begin(), kinds.end(), *kind) == kinds.end()) {
          answer = "error: there is no tool named '" + call.name + "' (tools: " + tool_list + ")";
          calls.push_back({{"tool", call.name}, {"outcome", "unknown-tool"}});
        } else if (args.is_discarded() || !args.is_object() || !args.contains("source") || !args["source"].is_string()) {
          answer = "error: the arguments must be a JSON object {\"source\": \"<the complete source file>\"}";
          calls.push_back({{"tool", call.name}, {"outcome", "bad-arguments"}});
        } else {
          const std::string source = args["source"].get<std::string>();
          const ToolResult result = co_await it->tool(*kind, source, call.id, args);
          answer = format_tool_result(result, ctx.config().feedback);
          calls.push_back({{"tool", call.name}, {"outcome", result.outcome}});
          last_outcome = result.outcome;
          last_source = source;
          last_signature = error_signature(result);
          if (*kind == ToolKind::Run || *kind == ToolKind::Profile || *kind == ToolKind::Submit)
            ctx.offer({it->index(), source, result.correct, result.speedup, result.outcome});
          if (*kind == ToolKind::Submit) {
            if (result.correct) {
              submitted_ok = true;
              last_speedup = result.speedup;
            } else {
              answer = ctx.feedback(result);
            }
          }
        }
        last_text = answer;
        messages.push_back(llm::Message::tool_result(call.id, answer));
      }
      if (cut_call) {
        // The complete calls ran; the cut one is reported after their results.
        last_text = "Your reply was cut off at the output limit after these calls: the call to `" + cut_call->name +
                    "` was not made.";
        messages.push_back(llm::Message::user(last_text));
        calls.push_back({{"tool", cut_call->name}, {"outcome", "truncated-tool-call"}});
      }
      detail["tool_calls"] = calls;
      detail["summary"] = last_text.substr(0, last_text.find('\n'));
      it->finish({last_outcome, last_source, submitted_ok, last_speedup, submitted_ok ? std::string() : last_text, last_signature, detail});
      if (submitted_ok) co_return AttemptEnd{"submitted"};
    }
  }

 private:
  nlohmann::json p_;
};

}  // namespace

PolicyInfo tool_agent_policy() {
  return {"tool-agent",
          "native function calling: the model calls lint, compile, run, profile and submit itself",
          {{"max_turns", 12},
           {"tools", {"lint", "compile", "run", "profile", "submit"}},
           {"implicit_submit", true},
           {"temperature", nullptr}},
          [](const nlohmann::json& params) -> Result<std::unique_ptr<Policy>> {
            if (param_int(params, "max_turns", 12) < 1) return make_error("policy.params", "tool-agent: max_turns must be at least 1");
            if (!params.value("tools", nlohmann::json::array()).is_array())
              return make_error("policy.params", "tool-agent: tools must be a list of tool names");
            for (const auto& t : params["tools"])
              if (!t.is_string() || !tool_from_name(t.get<std::string>()))
                return make_error("policy.params", "tool-agent: unknown tool " + t.dump() + " (lint, compile, run, profile, submit)");
            return std::unique_ptr<Policy>(new ToolAgent(params));
          }};
}

}  // namespace kgb::agent::policies
