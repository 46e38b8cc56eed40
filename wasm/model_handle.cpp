// ModelHandle and the forward-pass argument readers (see model_handle.hpp).
#include "model_handle.hpp"

#include <emscripten/bind.h>

#include "attention/trace_json.hpp"
#include "attention/weights_io.hpp"
#include "js_values.hpp"

namespace attention::js {

namespace {

Result<Transformer> make_model(const std::string& spec_json) {
  Result<Json> parsed = parse_json(spec_json, "spec");
  if (!parsed) return parsed.error_value();
  Result<ModelSpec> spec = from_json(model_spec_schema(), parsed.value());
  if (!spec) return spec.error_value();
  return Transformer::create(spec.value());
}

}  // namespace

Result<Json> parse_json(const std::string& text, const char* what) {
  // (const char*, const char*): the same parser instantiation as the safetensors reader's.
  Json parsed = Json::parse(text.data(), text.data() + text.size(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Error{std::string(what) + " is not valid JSON", error_code::kInvalidArgument, what};
  return parsed;
}

// Ids (B, S) with lengths and token types, and for encoder–decoder models the source likewise.
ForwardInput read_forward_input(const val& in) {
  ForwardInput input;
  input.batch = in["batch"].as<int>();
  input.seq = in["seq"].as<int>();
  input.ids = read_ints(in["ids"]);
  if (!in["lengths"].isNull()) input.lengths = read_ints(in["lengths"]);
  if (!in["sourceIds"].isNull()) {
    input.source_ids = read_ints(in["sourceIds"]);
    input.source_seq = in["sourceSeq"].as<int>();
    if (!in["sourceLengths"].isNull()) input.source_lengths = read_ints(in["sourceLengths"]);
  }
  const val types = in["tokenTypes"];
  if (!types.isUndefined() && !types.isNull()) input.token_types = read_ints(types);
  return input;
}

// Heads to switch off, [{ layer, head }] (checked by the TypeScript side and the core).
std::vector<HeadRef> read_heads(const val& list) {
  std::vector<HeadRef> heads;
  if (list.isUndefined() || list.isNull()) return heads;
  const std::size_t n = list["length"].as<std::size_t>();
  for (std::size_t i = 0; i < n; ++i) heads.push_back({list[i]["layer"].as<int>(), list[i]["head"].as<int>()});
  return heads;
}

ModelHandle::ModelHandle(std::string spec_json, std::string init, double seed) : failure_(val::undefined()) {
  Result<Transformer> made = make_model(spec_json);
  if (!made) {
    failure_ = js::error(made.error_value());
    return;
  }
  model_ = std::make_shared<Transformer>(std::move(made.value()));
  if (init == "random") model_->initialize_random(static_cast<std::uint64_t>(seed));
}

ModelHandle::ModelHandle(Transformer model)
    : model_(std::make_shared<Transformer>(std::move(model))), failure_(val::undefined()) {}

std::string ModelHandle::spec_json() const { return dump_json(to_json(model_spec_schema(), model_->spec())); }

std::string ModelHandle::parameters_json() const {
  Json list = Json::array();
  model_->visit_parameters([&](const Parameter& p) {
    list.push_back({{"name", p.name()}, {"shape", p.shape()}, {"storage", to_string(p.storage())}});
  });
  return dump_json(list);
}

val ModelHandle::parameter(std::string name) {
  const Parameter* p = model_->find_parameter(name);
  if (!p) return val::null();
  if (p->low_bit()) return to_float32_array(p->widened());  // 16- or 8-bit weights, widened
  return to_float32_array(p->data(), p->size());
}

val ModelHandle::load_weights(val bytes) {
  const HeapBytes data = read_bytes(bytes);
  Status s = load_safetensors(*model_, data.data.get(), data.size);
  return s ? val::undefined() : js::error(s.error_value());
}

val ModelHandle::weight_bytes() const {
  const Transformer::WeightBytes bytes = model_->weight_bytes();
  val out = val::object();
  out.set("total", static_cast<double>(bytes.total()));
  out.set(to_string(Storage::F32), static_cast<double>(bytes.f32));
  out.set(to_string(Storage::BF16), static_cast<double>(bytes.bf16));
  out.set(to_string(Storage::F16), static_cast<double>(bytes.f16));
  out.set(to_string(Storage::Q8_0), static_cast<double>(bytes.q8_0));
  return out;
}

val ModelHandle::save_weights() const { return to_uint8_array(save_safetensors(*model_)); }

val ModelHandle::forward(val in) const {
  ForwardOptions options;
  options.ablated_heads = read_heads(in["ablate"]);
  return forward_with(in, std::move(options));
}

val ModelHandle::forward_with(const val& in, ForwardOptions options) const {
  ForwardInput input = read_forward_input(in);
  RecordFilter filter;
  if (!in["record"].isNull()) {
    filter.patterns = emscripten::vecFromJSArray<std::string>(in["record"]["stages"]);
    filter.layers = emscripten::vecFromJSArray<int>(in["record"]["layers"]);
    options.record = &filter;
  }
  const val logits = in["logits"];  // 'all' | 'last' | 'none', checked by the TypeScript side
  const std::string rows = logits.isString() ? logits.as<std::string>() : "all";
  options.logits = rows == "last" ? LogitRows::Last : rows == "none" ? LogitRows::None : LogitRows::All;
  Result<ForwardOutput> r = model_->forward(input, options);
  if (!r) return js::error(r.error_value());
  val result = options.record ? trace_to_js(r.value().trace) : val::object();
  result.set("hidden", to_float32_array(r.value().hidden.data));
  result.set("logits", r.value().logits.data.empty() ? val::null() : to_float32_array(r.value().logits.data));
  return result;
}

}  // namespace attention::js
