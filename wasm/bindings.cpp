// Embind bindings: copy JS typed arrays and plain objects into core types, call
// the core, copy the results back out as fresh typed arrays. No math here. The
// names are private (leading underscore): users see the TypeScript API in
// wasm/src, which validates arguments before they get here. These functions check
// sizes again, so that no call can make the core read past an array; problems
// come back as { error: "..." }, never as an abort.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "attention/model.hpp"
#include "attention/multi_head.hpp"

// heap_accounting.cpp: bytes held through operator new, for the leak tests.
std::size_t heap_bytes_in_use();

using emscripten::val;
using namespace attention;

namespace {

val error(const std::string& message) {
  val result = val::object();
  result.set("error", message);
  return result;
}

// A copy of the floats as a JS Float32Array the caller owns (no view into the heap,
// which would go stale when memory grows).
val to_float32_array(const std::vector<float>& data) {
  return val(emscripten::typed_memory_view(data.size(), data.data())).call<val>("slice");
}

template <class T>
val to_js_array(const std::vector<T>& items) {
  val array = val::array();
  for (const T& item : items) array.call<void>("push", val(item));
  return array;
}

val tokens_to_js(const std::vector<std::vector<std::string>>& tokens) {
  val array = val::array();
  for (const auto& sequence : tokens) array.call<void>("push", to_js_array(sequence));
  return array;
}

// A typed array of floats with exactly `expected` elements, else an error message.
bool read_floats(const val& input, const char* name, std::size_t expected, std::vector<float>& out,
                 std::string& message) {
  const val array = input[name];
  const std::size_t length = array["length"].as<std::size_t>();
  if (length != expected) {
    message = std::string(name) + " has " + std::to_string(length) + " elements, expected " + std::to_string(expected);
    return false;
  }
  out = emscripten::convertJSArrayToNumberVector<float>(array);
  return true;
}

val multi_head_attention_js(val input) {
  const int batch = input["batch"].as<int>(), sq = input["querySeq"].as<int>(), sk = input["keySeq"].as<int>();
  const int e = input["embedDim"].as<int>();
  if (batch <= 0 || sq <= 0 || sk <= 0 || e <= 0) return error("sizes must be positive");
  const std::size_t ub = batch, usq = sq, usk = sk, ue = e;
  std::string message;
  std::vector<float> q, k, v;
  MultiHeadWeights w;
  w.embed_dim = e;
  if (!read_floats(input, "query", ub * usq * ue, q, message) || !read_floats(input, "key", ub * usk * ue, k, message) ||
      !read_floats(input, "value", ub * usk * ue, v, message) ||
      !read_floats(input, "inProjWeight", 3 * ue * ue, w.in_proj_weight, message) ||
      !read_floats(input, "inProjBias", 3 * ue, w.in_proj_bias, message) ||
      !read_floats(input, "outProjWeight", ue * ue, w.out_proj_weight, message) ||
      !read_floats(input, "outProjBias", ue, w.out_proj_bias, message))
    return error(message);

  const Tensor query({"B", "Sq", "E"}, {batch, sq, e}, std::move(q));
  const Tensor key({"B", "Sk", "E"}, {batch, sk, e}, std::move(k));
  const Tensor value({"B", "Sk", "E"}, {batch, sk, e}, std::move(v));
  MultiHeadOptions options;
  options.heads = input["heads"].as<int>();
  options.causal = input["causal"].as<bool>();
  options.scale = input["scale"].as<bool>();
  Tensor padding, user_mask;
  if (!input["keyPaddingMask"].isNull()) {
    if (!read_floats(input, "keyPaddingMask", ub * usk, padding.data, message)) return error(message);
    padding = Tensor({"B", "Sk"}, {batch, sk}, std::move(padding.data));
    options.key_padding_mask = &padding;
  }
  if (!input["attnMask"].isNull()) {
    if (!read_floats(input, "attnMask", usq * usk, user_mask.data, message)) return error(message);
    user_mask = Tensor({"Sq", "Sk"}, {sq, sk}, std::move(user_mask.data));
    options.attn_mask = &user_mask;
  }
  Result<MultiHeadResult> r = multi_head_attention(query, key, value, w, options);
  if (!r) return error(r.error());
  val result = val::object();
  result.set("output", to_float32_array(r.value().output.data));
  result.set("weights", to_float32_array(r.value().weights.data));
  return result;
}

bool parse_config(const val& js, ModelConfig& c, std::string& message) {
  const std::string mode = js["mode"].as<std::string>();
  const std::string preset = js["preset"].as<std::string>();
  const std::string activation = js["activation"].as<std::string>();
  const std::string norm = js["norm"].as<std::string>();
  if (mode == "encoder") c.mode = Mode::Encoder;
  else if (mode == "decoder") c.mode = Mode::Decoder;
  else if (mode == "cross") c.mode = Mode::Cross;
  else return message = "unknown mode '" + mode + "'", false;
  if (preset == "random") c.preset = Preset::Random;
  else if (preset == "identity") c.preset = Preset::Identity;
  else if (preset == "positional") c.preset = Preset::Positional;
  else return message = "unknown preset '" + preset + "'", false;
  if (activation == "relu") c.activation = Activation::ReLU;
  else if (activation == "gelu") c.activation = Activation::GELU;
  else return message = "unknown activation '" + activation + "'", false;
  if (norm == "post") c.norm = NormPlacement::Post;
  else if (norm == "pre") c.norm = NormPlacement::Pre;
  else return message = "unknown norm '" + norm + "'", false;
  c.d_model = js["dModel"].as<int>();
  c.heads = js["heads"].as<int>();
  c.layers = js["layers"].as<int>();
  c.ffn_dim = js["ffnDim"].as<int>();
  c.seed = js["seed"].as<unsigned>();
  c.scale = js["scale"].as<bool>();
  c.residual = js["residual"].as<bool>();
  c.positional = js["positional"].as<bool>();
  return true;
}

val run_js(val texts, val sources, val config) {
  ModelConfig c;
  std::string message;
  if (!parse_config(config, c, message)) return error(message);
  Result<Trace> r = run_model(c, emscripten::vecFromJSArray<std::string>(texts),
                              emscripten::vecFromJSArray<std::string>(sources));
  if (!r) return error(r.error());
  const Trace& trace = r.value();
  val stages = val::array();
  for (const Stage& stage : trace.stages) {
    val s = val::object();
    s.set("layer", stage.layer);
    s.set("name", stage.name);
    s.set("axes", to_js_array(stage.tensor.axes));
    s.set("shape", to_js_array(stage.tensor.shape));
    s.set("data", to_float32_array(stage.tensor.data));
    stages.call<void>("push", s);
  }
  val result = val::object();
  result.set("tokens", tokens_to_js(trace.tokens));
  result.set("sourceTokens", tokens_to_js(trace.source_tokens));
  result.set("stages", stages);
  return result;
}


}  // namespace

EMSCRIPTEN_BINDINGS(attention_engine) {
  emscripten::function("_multiHeadAttention", &multi_head_attention_js);
  emscripten::function("_run", &run_js);
  emscripten::function("_heapInUse", &heap_bytes_in_use);
}
