#include "format.h"

#include <cmath>
#include <cstdio>

namespace kgb::report::fmt {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string percent(double fraction, int digits) { return fixed(100.0 * fraction, digits) + "%"; }

std::string percent(const std::optional<double>& fraction) { return fraction ? percent(*fraction) : "-"; }

std::string points(double pp) { return (pp > 0 ? "+" : pp < 0 ? "" : "\u00b1") + fixed(pp, 1) + " pp"; }

std::string speedup(const std::optional<double>& s) {
  if (!s) return "-";
  return fixed(*s, *s >= 100 ? 0 : *s >= 10 ? 1 : 2) + "x";
}

std::string ratio(const std::optional<double>& r) { return r ? "x" + fixed(*r, 2) : "-"; }

std::string count(double n) {
  const double a = std::fabs(n);
  if (a >= 1e9) return fixed(n / 1e9, 2) + "G";
  if (a >= 1e6) return fixed(n / 1e6, a >= 1e7 ? 1 : 2) + "M";
  if (a >= 1e4) return fixed(n / 1e3, a >= 1e5 ? 0 : 1) + "k";
  if (a >= 100 || n == std::floor(n)) return fixed(n, 0);
  return fixed(n, 1);
}

std::string count(const std::optional<double>& n) { return n ? count(*n) : "-"; }

std::string usd(double v) {
  if (v == 0) return "$0";
  return "$" + fixed(v, std::fabs(v) < 0.01 ? 5 : std::fabs(v) < 1 ? 4 : 2);
}

std::string usd(const std::optional<double>& v) { return v ? usd(*v) : "-"; }

std::string seconds(double s) {
  if (s < 60) return fixed(s, s < 10 ? 2 : 1) + " s";
  if (s < 3600) return fixed(s / 60, 1) + " min";
  return fixed(s / 3600, 2) + " h";
}

std::string seconds(const std::optional<double>& s) { return s ? seconds(*s) : "-"; }

std::string number(const std::optional<double>& v, int digits) { return v ? fixed(*v, digits) : "-"; }

}  // namespace kgb::report::fmt
