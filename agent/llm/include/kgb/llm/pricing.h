// Prices per model in US dollars per million tokens, and the cost of a call.
// Defaults ship in agent/llm/data/prices.json (compiled in); a user file,
// given explicitly or through KGB_PRICES_FILE, overrides or adds models.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kgb/llm/types.h"
#include "kgb/result.h"

namespace kgb::llm {

struct ModelPrice {
  double input = 0;         // uncached prompt tokens
  double cached_input = 0;  // prompt tokens read from the cache
  double output = 0;        // generated tokens, reasoning included
  double cache_write = 0;   // prompt tokens written to the cache (Anthropic); defaults to `input`
};

class PriceTable {
 public:
  // The compiled-in defaults only.
  static PriceTable defaults();
  // Defaults, then the file named by KGB_PRICES_FILE if set.
  static kgb::Result<PriceTable> from_environment();

  // JSON: {"models": {"gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10}, "claude-*": {...}}}
  // Entries replace same-named ones. A key ending in '*' matches by prefix.
  kgb::Status merge_json(std::string_view json_text, std::string_view origin);
  kgb::Status merge_file(const std::filesystem::path& file);
  void set(std::string model_pattern, ModelPrice price);

  // Exact name first, then the longest matching prefix pattern; a provider
  // prefix ("openrouter/…", "anthropic/…") is also tried without it.
  std::optional<ModelPrice> find(std::string_view model) const;
  std::optional<double> cost(std::string_view model, const Usage& usage) const;
  std::size_t size() const { return prices_.size(); }

 private:
  std::map<std::string, ModelPrice, std::less<>> prices_;
};

double cost_of(const ModelPrice& price, const Usage& usage);

}  // namespace kgb::llm
