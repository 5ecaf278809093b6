// The run configuration reader (TOML) on arbitrary text. Invariants for a
// configuration it accepts: every number the text gives arrives unchanged
// where the recorded JSON has the same key (no silent narrowing); the
// configuration survives the round trip through that JSON (config_to_json,
// then config_from_json, as `kgb run --resume` reads it) unchanged; and the
// re-read copy validates as the original does.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "kgb/agent/config.h"

namespace {

using json = nlohmann::json;

// Walks the TOML tables and compares each number with the recorded value at
// the same path, where the record keeps that key.
void check_numbers(const toml::table& table, const json& recorded) {
  for (const auto& [key, node] : table) {
    const auto at = recorded.find(std::string(key.str()));
    if (at == recorded.end()) continue;
    if (const auto* sub = node.as_table()) {
      if (at->is_object()) check_numbers(*sub, *at);
    } else if (const auto* i = node.as_integer()) {
      // An integer given for a floating-point setting becomes a double.
      const bool same = at->is_number_float() ? at->get<double>() == static_cast<double>(i->get())
                                              : at->is_number_integer() && at->get<int64_t>() == i->get() &&
                                                    !(at->is_number_unsigned() && i->get() < 0);
      if (!same) std::abort();
    } else if (const auto* f = node.as_floating_point()) {
      // Tables kept as JSON (provider.extra, policy parameters) may hold nan.
      if (!at->is_number() || !(at->get<double>() == f->get() || (std::isnan(f->get()) && std::isnan(at->get<double>()))))
        std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto config = kgb::agent::parse_config_toml(text, "fuzz.toml");
  if (!config) {
    if (config.error().message.empty()) std::abort();
    return 0;
  }
  const json recorded = kgb::agent::config_to_json(*config);
  check_numbers(toml::parse(text), recorded);  // the reader accepted it: it parses
  const auto reread = kgb::agent::config_from_json(recorded);
  if (!reread) std::abort();
  if (kgb::agent::config_to_json(*reread).dump() != recorded.dump()) std::abort();
  if (kgb::agent::validate_config(*config).ok() != kgb::agent::validate_config(*reread).ok()) std::abort();
  return 0;
}
