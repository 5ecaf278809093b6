// Helpers shared by the built-in policies.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kgb/agent/policy.h"

namespace kgb::agent::policies {

// A conversation with a bounded history: the opening messages (system, task)
// and the last `keep` exchanges of (model reply, feedback); keep = 0: all.
// When exchanges were dropped the task message ends with a line
// "[N earlier attempts and their feedback are left out of this conversation]",
// so the model (and the oracle, which counts attempts) knows how far it is.
class Conversation {
 public:
  Conversation(std::vector<llm::Message> opening, int keep) : opening_(std::move(opening)), keep_(keep) {}

  void add_exchange(llm::Message reply, llm::Message feedback);
  // Starts over: drops every exchange (counted as left out) and adds `note`
  // to the task message.
  void restart(const std::string& note);
  std::vector<llm::Message> messages() const;
  size_t exchanges() const { return turns_.size(); }

 private:
  std::vector<llm::Message> opening_;
  std::vector<std::pair<llm::Message, llm::Message>> turns_;
  std::string note_;
  int keep_;
  int dropped_ = 0;
};

// The model's reply as it goes back into the conversation: capped, and a
// placeholder for replies that are not text.
std::string reply_for_history(const ChatResult& chat, const ExtractedCode& code);

std::string format_number(double v);

// A parameter read with a default (the registry already filled defaults).
double param_double(const nlohmann::json& params, const char* key, double fallback);
int param_int(const nlohmann::json& params, const char* key, int fallback);
bool param_bool(const nlohmann::json& params, const char* key, bool fallback);
std::optional<double> param_optional_double(const nlohmann::json& params, const char* key);

// Applies a policy's temperature parameter (null: the provider's setting).
void apply_temperature(llm::ChatRequest& request, const nlohmann::json& params);

// The built-in policies, registered by the registry itself.
PolicyInfo sample_policy();
PolicyInfo refine_policy();
PolicyInfo parallel_refine_policy();
PolicyInfo tool_agent_policy();

}  // namespace kgb::agent::policies
