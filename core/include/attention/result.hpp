#pragma once
// Errors as values: every invalid setting, input or file comes back as an Error,
// never as an abort or an exception across the API. An Error carries a message
// meant for a person, a stable code a program can branch on, and the field (the
// setting, argument or tensor name) it concerns. The codes are listed once, in
// kErrorCodes; the TypeScript side receives them from the engine.
#include <string>
#include <utility>
#include <variant>

namespace attention {

namespace error_code {
inline constexpr const char* kInvalidArgument = "invalid_argument";    // wrong type, unknown name, bad combination
inline constexpr const char* kOutOfRange = "out_of_range";             // a number outside its allowed range
inline constexpr const char* kNotDivisible = "not_divisible";          // e.g. heads must divide d_model
inline constexpr const char* kShapeMismatch = "shape_mismatch";        // an array or tensor of the wrong size
inline constexpr const char* kNonFinite = "non_finite";                // NaN or Infinity in an input
inline constexpr const char* kOverflow = "overflow";                   // float32 overflowed on the way
inline constexpr const char* kLimitExceeded = "limit_exceeded";        // more memory, tokens or texts than allowed
inline constexpr const char* kBadFile = "bad_file";                    // a file that is not what it claims to be
inline constexpr const char* kMissingTensor = "missing_tensor";        // a weights file lacks a parameter
inline constexpr const char* kUnexpectedTensor = "unexpected_tensor";  // a weights file has a name the model lacks
inline constexpr const char* kUnsupportedDtype = "unsupported_dtype";  // a tensor type we do not read
inline constexpr const char* kTiedMismatch = "tied_mismatch";  // two names of one tied tensor hold different values
inline constexpr const char* kDisposed = "disposed";           // a handle used after dispose()
inline constexpr const char* kDiverged = "diverged";           // training met a non-finite loss or gradient
inline constexpr const char* kReadOnly = "read_only";          // writing or training weights held in 16 or 8 bits
// Raised by the package's loaders (wasm/src), listed here so every code is declared once:
inline constexpr const char* kMissingFile = "missing_file";  // a checkpoint lacks a file it needs (config.json, ...)
inline constexpr const char* kNetwork = "network";           // a download failed (HTTP status, connection)
inline constexpr const char* kAborted = "aborted";           // the caller's AbortSignal stopped a load
}  // namespace error_code

inline constexpr const char* kErrorCodes[] = {
    error_code::kInvalidArgument,  error_code::kOutOfRange,       error_code::kNotDivisible,
    error_code::kShapeMismatch,    error_code::kNonFinite,        error_code::kOverflow,
    error_code::kLimitExceeded,    error_code::kBadFile,          error_code::kMissingTensor,
    error_code::kUnexpectedTensor, error_code::kUnsupportedDtype, error_code::kTiedMismatch,
    error_code::kDisposed,         error_code::kDiverged,         error_code::kMissingFile,
    error_code::kNetwork,          error_code::kAborted,          error_code::kReadOnly,
};

struct Error {
  Error(std::string message_text, std::string error_code_text = error_code::kInvalidArgument,
        std::string field_name = "")
      : message(std::move(message_text)), code(std::move(error_code_text)), field(std::move(field_name)) {}
  std::string message;
  std::string code;
  std::string field;  // the setting, argument or tensor concerned; empty if none
};

template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit on purpose
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit on purpose

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const std::string& error() const { return std::get<Error>(state_).message; }
  const Error& error_value() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// For checks that produce nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace attention
