#include "kgb/llm/retry.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

namespace kgb::llm {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  double value = 0;
  bool seen_digit = false, in_fraction = false;
  double scale = 0.1;
  for (char c : text) {
    if (c == '.' && !in_fraction) {
      in_fraction = true;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      seen_digit = true;
      if (in_fraction) {
        value += (c - '0') * scale;
        scale /= 10;
      } else {
        value = value * 10 + (c - '0');
      }
    } else {
      return std::nullopt;
    }
  }
  if (!seen_digit) return std::nullopt;
  return value;
}

int month_index(std::string_view name) {
  static constexpr std::array<std::string_view, 12> months{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 12; ++i)
    if (months[i] == name) return i;
  return -1;
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text) {
  const std::string s(trim(text));
  char weekday[16] = {}, month[4] = {}, zone[4] = {};
  int day = 0, year = 0, hour = 0, minute = 0, second = 0;
  int parsed_month = -1;
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  if (std::sscanf(s.c_str(), "%15[A-Za-z], %d %3s %d %d:%d:%d %3s", weekday, &day, month, &year, &hour, &minute,
                  &second, zone) == 8) {
    parsed_month = month_index(month);
  } else if (std::sscanf(s.c_str(), "%15[A-Za-z], %d-%3s-%d %d:%d:%d %3s", weekday, &day, month, &year, &hour,
                         &minute, &second, zone) == 8) {
    // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT (two-digit year)
    parsed_month = month_index(month);
    if (year < 100) year += year < 70 ? 2000 : 1900;
  } else if (std::sscanf(s.c_str(), "%15[A-Za-z] %3s %d %d:%d:%d %d", weekday, month, &day, &hour, &minute, &second,
                         &year) == 7) {
    // asctime: Sun Nov  6 08:49:37 1994
    parsed_month = month_index(month);
    std::snprintf(zone, sizeof zone, "GMT");
  } else {
    return std::nullopt;
  }
  if (parsed_month < 0 || std::string_view(zone) != "GMT" || day < 1 || day > 31 || hour > 23 || minute > 59 ||
      second > 60)
    return std::nullopt;
  const int64_t days = days_from_civil(year, static_cast<unsigned>(parsed_month + 1), static_cast<unsigned>(day));
  const int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second;
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds));
}

std::string format_http_date(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  gmtime_r(&t, &tm);
  static constexpr const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday], tm.tm_mday,
                months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buffer;
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view retry_after_ms,
                                                           std::string_view retry_after,
                                                           std::chrono::system_clock::time_point now) {
  using namespace std::chrono;
  if (auto ms = parse_number(retry_after_ms)) return milliseconds(static_cast<int64_t>(std::ceil(*ms)));
  if (auto seconds = parse_number(retry_after)) return milliseconds(static_cast<int64_t>(std::ceil(*seconds * 1000)));
  if (auto date = parse_http_date(retry_after)) {
    if (*date <= now) return 0ms;
    return duration_cast<milliseconds>(*date - now);
  }
  return std::nullopt;
}

bool retryable_status(int status) {
  return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

Backoff::Backoff(const RetryPolicy& policy)
    : policy_(policy),
      rng_(policy.seed ? policy.seed : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())) {}

std::chrono::milliseconds Backoff::delay(int retry, const std::optional<std::chrono::milliseconds>& server_asked) {
  using namespace std::chrono;
  if (server_asked) return std::min(*server_asked, policy_.max_retry_after);
  const double base = static_cast<double>(policy_.initial_backoff.count()) *
                      std::pow(policy_.multiplier, std::max(0, retry - 1));
  const double capped = std::min(base, static_cast<double>(policy_.max_backoff.count()));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double jitter = std::clamp(policy_.jitter, 0.0, 1.0);
  return milliseconds(static_cast<int64_t>(capped * (1.0 - jitter * unit(rng_))));
}

}  // namespace kgb::llm
