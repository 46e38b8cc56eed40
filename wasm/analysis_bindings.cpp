// See analysis_bindings.hpp. Copies only; the math is in core/src/analysis/.
#include "analysis_bindings.hpp"

#include <cstdint>
#include <string>

#include "attention/analysis/head_scores.hpp"
#include "js_values.hpp"

namespace attention::js {

val head_scores_js(ModelHandle& model, val options) {
  Result<HeadPattern> kind = parse_head_pattern(options["kind"].as<std::string>());
  if (!kind) return error(kind.error_value());
  HeadScoreOptions o;
  o.kind = kind.value();
  o.seed = static_cast<std::uint64_t>(options["seed"].as<double>());
  o.length = options["length"].as<int>();
  o.batch = options["batch"].as<int>();
  Result<Tensor> scores = head_scores(*model.shared(), o);
  if (!scores) return error(scores.error_value());
  return to_float32_array(scores.value().data);
}

}  // namespace attention::js
