// Number formatting shared by the renderers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kgb::report::fmt {

std::string fixed(double v, int digits);
std::string percent(double fraction, int digits = 1);       // 0.5 -> "50.0%"
std::string percent(const std::optional<double>& fraction);  // "-" when missing
std::string points(double pp);                               // "+12.5 pp"
std::string speedup(const std::optional<double>& s);         // "1.23x" / "-"
std::string ratio(const std::optional<double>& r);           // "x1.10" / "-"
std::string count(double n);                                 // 12345 -> "12.3k"
std::string count(const std::optional<double>& n);
std::string usd(double v);
std::string usd(const std::optional<double>& v);
std::string seconds(double s);
std::string seconds(const std::optional<double>& s);
std::string number(const std::optional<double>& v, int digits = 2);

}  // namespace kgb::report::fmt
