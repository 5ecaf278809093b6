#include "kgb/llm/pricing.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kgb::llm {

namespace detail {
extern const std::string_view default_prices_json;
}

PriceTable PriceTable::defaults() {
  PriceTable table;
  // The file is part of the build; a broken one is a bug caught by the tests.
  auto status = table.merge_json(detail::default_prices_json, "built-in prices");
  if (!status) throw std::logic_error(status.error().message);
  return table;
}

kgb::Result<PriceTable> PriceTable::from_environment() {
  PriceTable table = defaults();
  if (const char* file = std::getenv("KGB_PRICES_FILE"); file && *file) {
    auto status = table.merge_file(file);
    if (!status) return status.error();
  }
  return table;
}

kgb::Status PriceTable::merge_json(std::string_view json_text, std::string_view origin) {
  nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded())
    return make_error("prices.json", std::string(origin) + " is not valid JSON");
  if (!doc.is_object() || !doc.contains("models") || !doc["models"].is_object())
    return make_error("prices.format", std::string(origin) + " needs an object \"models\"");
  std::map<std::string, ModelPrice, std::less<>> parsed;
  for (const auto& [model, entry] : doc["models"].items()) {
    if (!entry.is_object())
      return make_error("prices.format", std::string(origin) + ": model " + model + " is not an object");
    ModelPrice price;
    auto read = [&](const char* key, double& slot, bool required) -> kgb::Status {
      if (!entry.contains(key)) {
        if (required) return make_error("prices.format", std::string(origin) + ": model " + model + " lacks \"" + key + "\"");
        return Ok{};
      }
      if (!entry[key].is_number() || entry[key].get<double>() < 0)
        return make_error("prices.format", std::string(origin) + ": model " + model + " field \"" + key +
                                               "\" must be a non-negative number");
      slot = entry[key].get<double>();
      return Ok{};
    };
    for (auto status : {read("input", price.input, true), read("output", price.output, true)})
      if (!status) return status;
    price.cached_input = price.input;
    price.cache_write = price.input;
    for (auto status : {read("cached_input", price.cached_input, false), read("cache_write", price.cache_write, false)})
      if (!status) return status;
    parsed[model] = price;
  }
  for (auto& [model, price] : parsed) prices_[model] = price;
  return Ok{};
}

kgb::Status PriceTable::merge_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("prices.read", "cannot read the price file " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  return merge_json(text.str(), file.string());
}

void PriceTable::set(std::string model_pattern, ModelPrice price) { prices_[std::move(model_pattern)] = price; }

std::optional<ModelPrice> PriceTable::find(std::string_view model) const {
  auto lookup = [&](std::string_view name) -> std::optional<ModelPrice> {
    if (auto it = prices_.find(name); it != prices_.end()) return it->second;
    std::optional<ModelPrice> best;
    std::size_t best_length = 0;
    for (const auto& [pattern, price] : prices_) {
      if (pattern.empty() || pattern.back() != '*') continue;
      const std::string_view prefix = std::string_view(pattern).substr(0, pattern.size() - 1);
      if (name.starts_with(prefix) && (!best || prefix.size() > best_length)) {
        best = price;
        best_length = prefix.size();
      }
    }
    return best;
  };
  if (auto price = lookup(model)) return price;
  if (auto slash = model.rfind('/'); slash != std::string_view::npos) return lookup(model.substr(slash + 1));
  return std::nullopt;
}

double cost_of(const ModelPrice& price, const Usage& usage) {
  const int64_t uncached = std::max<int64_t>(0, usage.input_tokens - usage.cached_input_tokens - usage.cache_write_tokens);
  const double dollars = static_cast<double>(uncached) * price.input +
                         static_cast<double>(usage.cached_input_tokens) * price.cached_input +
                         static_cast<double>(usage.cache_write_tokens) * price.cache_write +
                         static_cast<double>(usage.output_tokens) * price.output;
  return dollars / 1e6;
}

std::optional<double> PriceTable::cost(std::string_view model, const Usage& usage) const {
  auto price = find(model);
  if (!price) return std::nullopt;
  return cost_of(*price, usage);
}

}  // namespace kgb::llm
