#include "common.h"

#include <cstdio>
#include <sstream>

namespace kgb::agent::policies {

void Conversation::add_exchange(llm::Message reply, llm::Message feedback) {
  turns_.emplace_back(std::move(reply), std::move(feedback));
  if (keep_ > 0)
    while (static_cast<int>(turns_.size()) > keep_) {
      turns_.erase(turns_.begin());
      ++dropped_;
    }
}

void Conversation::restart(const std::string& note) {
  // The exchanges dropped by a fresh start were attempts all the same.
  dropped_ += static_cast<int>(turns_.size());
  turns_.clear();
  note_ = note;
}

std::vector<llm::Message> Conversation::messages() const {
  std::vector<llm::Message> out = opening_;
  std::string addendum = note_;
  if (dropped_ > 0)
    addendum += (addendum.empty() ? "" : "\n\n") + std::string("[") + std::to_string(dropped_) +
                " earlier attempts and their feedback are left out of this conversation]";
  if (!addendum.empty()) {
    // It goes after the task statement, in the same user message, so the task
    // stays the first thing the model reads.
    for (auto it = out.rbegin(); it != out.rend(); ++it)
      if (it->role == llm::Role::User) {
        it->content += "\n\n" + addendum;
        break;
      }
  }
  for (const auto& [reply, feedback] : turns_) {
    out.push_back(reply);
    out.push_back(feedback);
  }
  return out;
}

std::string reply_for_history(const ChatResult& chat, const ExtractedCode& code) {
  constexpr size_t kMax = 48 * 1024;
  if (code.status == ExtractStatus::Binary)
    return "[a reply of " + std::to_string(chat.text.size()) + " bytes that is not text]";
  if (chat.text.size() <= kMax) return chat.text;
  if (code.status == ExtractStatus::Ok && code.code.size() <= kMax) return "```\n" + code.code + "```\n[the rest of a " +
                                                                            std::to_string(chat.text.size()) + "-byte reply left out]";
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(chat.text[cut]) & 0xC0) == 0x80) --cut;
  return chat.text.substr(0, cut) + "\n[... " + std::to_string(chat.text.size() - cut) + " more bytes left out]";
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

double param_double(const nlohmann::json& p, const char* key, double fallback) {
  return p.contains(key) && p[key].is_number() ? p[key].get<double>() : fallback;
}

int param_int(const nlohmann::json& p, const char* key, int fallback) {
  return p.contains(key) && p[key].is_number_integer() ? p[key].get<int>() : fallback;
}

bool param_bool(const nlohmann::json& p, const char* key, bool fallback) {
  return p.contains(key) && p[key].is_boolean() ? p[key].get<bool>() : fallback;
}

std::optional<double> param_optional_double(const nlohmann::json& p, const char* key) {
  if (p.contains(key) && p[key].is_number()) return p[key].get<double>();
  return std::nullopt;
}

void apply_temperature(llm::ChatRequest& request, const nlohmann::json& params) {
  if (auto t = param_optional_double(params, "temperature")) request.temperature = *t;
}

}  // namespace kgb::agent::policies
