// Result<T>: expected failures as values. Exceptions are kept for bugs and
// fatal configuration; everything a kernel, a model or a network can do wrong
// travels as an Error inside a Result.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace kgb {

struct Error {
  std::string code;     // short machine-readable kind, e.g. "spec.missing-field"
  std::string message;  // one sentence for a person, naming what and where
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result<void> stand-in.
struct Ok {};
using Status = Result<Ok>;

inline Error make_error(std::string code, std::string message) {
  return Error{std::move(code), std::move(message)};
}

}  // namespace kgb
