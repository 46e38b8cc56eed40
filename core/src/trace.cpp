#include "attention/trace.hpp"

namespace attention {

const Stage* Trace::find(int layer, const std::string& name) const {
  for (const Stage& stage : stages)
    if (stage.layer == layer && stage.name == name) return &stage;
  return nullptr;
}

}  // namespace attention
