#pragma once

namespace attention {

// Which implementation of the hot loops to use. Reference is the plain scalar
// code that serves as the spec; Eigen is the fast path tested against it.
enum class Backend { Reference, Eigen };

}  // namespace attention
