// PatchingHandle (see patching_handle.hpp): copies only, the math is in core/src/analysis/patching.cpp.
#include "patching_handle.hpp"

#include <string>

#include "js_values.hpp"

namespace attention::js {

PatchingHandle::PatchingHandle(const ModelHandle& model, val in) : model_(model.shared()), failure_(val::undefined()) {
  Result<PatchOver> over = parse_patch_over(in["over"].as<std::string>());
  if (!over) {
    failure_ = js::error(over.error_value());
    return;
  }
  Result<PatchMethod> method = parse_patch_method(in["method"].as<std::string>());
  if (!method) {
    failure_ = js::error(method.error_value());
    return;
  }
  PatchingOptions o;
  o.clean = read_ints(in["clean"]);
  o.corrupted = read_ints(in["corrupted"]);
  o.position = in["position"].as<int>();
  o.good = in["good"].as<int>();
  o.bad = in["bad"].as<int>();
  o.over = over.value();
  o.method = method.value();
  Result<PatchingRun> started = PatchingRun::start(*model_, o);
  if (!started) {
    failure_ = js::error(started.error_value());
    return;
  }
  run_.emplace(std::move(started.value()));
}

val PatchingHandle::step() {
  if (Status ok = run_->step(); !ok) return js::error(ok.error_value());
  val out = val::object();
  out.set("done", run_->done_steps());
  out.set("total", run_->total_steps());
  return out;
}

val PatchingHandle::result() const {
  const Patching& p = run_->result();
  val out = val::object();
  out.set("rows", p.rows);
  out.set("columns", p.columns);
  out.set("recovered", to_float32_array(p.recovered));
  out.set("cleanDiff", p.clean_diff);
  out.set("corruptedDiff", p.corrupted_diff);
  return out;
}

PatchingHandle* start_patching_js(ModelHandle& model, val options) { return new PatchingHandle(model, options); }

}  // namespace attention::js
