#include "attention/numeric.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace attention {

bool all_finite(const float* values, std::size_t n) {
  // NaN and +-inf are the floats whose exponent bits are all ones; an integer test
  // without branches, which the compiler vectorizes.
  std::uint32_t non_finite = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    non_finite |= static_cast<std::uint32_t>((bits & 0x7F800000u) == 0x7F800000u);
  }
  return non_finite == 0;
}

Status check_finite(const std::string& name, const float* values, std::size_t n) {
  if (all_finite(values, n)) return Ok{};
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(values[i]))
      return Error{name + "[" + std::to_string(i) + "] is " +
                       (std::isnan(values[i]) ? "NaN"
                        : values[i] > 0       ? "Infinity"
                                              : "-Infinity") +
                       "; inputs must be finite numbers",
                   error_code::kNonFinite, name};
  return Ok{};
}

Error overflow_error(const std::string& where) {
  return Error{"numeric overflow: " + where + " are not finite in float32 because the inputs or " +
                   "weights are too large (keep |values| well below 1e18)",
               error_code::kOverflow, ""};
}

}  // namespace attention
