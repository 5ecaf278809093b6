// Built-in lists used when a platform or task does not bring its own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kgb/lint.h"

namespace kgb::lint::detail {

// The platform's allowlist when it has one, else the backend's default.
std::vector<std::string> effective_allowed_includes(const Platform* platform, std::string_view backend);
std::vector<std::string> effective_allowed_symbols(const Platform& platform);

}  // namespace kgb::lint::detail
