#pragma once
// Errors as values: every invalid config or input comes back as an Error with a
// message meant for a person, never as an abort or an exception across the API.
#include <string>
#include <utility>
#include <variant>

namespace attention {

struct Error {
  std::string message;
};

template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}          // NOLINT: implicit on purpose
  Result(Error error) : state_(std::move(error)) {}      // NOLINT: implicit on purpose

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const std::string& error() const { return std::get<Error>(state_).message; }

 private:
  std::variant<T, Error> state_;
};

// For checks that produce nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace attention
