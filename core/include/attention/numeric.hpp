#pragma once
// Finiteness checks shared by every entry point that takes numbers from outside.
#include <cstddef>
#include <string>

#include "attention/result.hpp"

namespace attention {

// True when no value is NaN or +-inf.
bool all_finite(const float* values, std::size_t n);

// NaN or Infinity in an input has no meaningful result: an Error (code non_finite,
// field `name`) naming the first one, e.g. "query[3] is NaN".
Status check_finite(const std::string& name, const float* values, std::size_t n);

// Finite inputs can still overflow float32 (|x| ~ 3e38 makes projections infinite,
// q.k of ~1e30 values is 1e60): report it rather than hand back Infinity, NaN or a
// silently meaningless result.
Error overflow_error(const std::string& where);

}  // namespace attention
