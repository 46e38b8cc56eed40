// Embind bindings: copy JS typed arrays and plain objects into core types, call
// the core, copy the results back out as fresh typed arrays. No math here. The
// names are private (leading underscore): users see the TypeScript API in
// wasm/src, which validates arguments before they get here. These functions check
// sizes again, so that no call can make the core read past an array; problems
// come back as { error: "..." }, never as an abort.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdio>
#include <map>
#include <memory>
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

// A JSON string literal: quotes, backslashes and control characters escaped; other
// bytes (valid UTF-8, checked by the tokenizer) pass through.
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string tokens_json(const std::vector<std::vector<std::string>>& tokens) {
  std::string out = "[";
  for (std::size_t b = 0; b < tokens.size(); ++b) {
    out += b ? ",[" : "[";
    for (std::size_t i = 0; i < tokens[b].size(); ++i) out += (i ? "," : "") + json_string(tokens[b][i]);
    out += "]";
  }
  return out + "]";
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

// The four weight arrays of one attention layer, each checked for its size.
bool read_weights(const val& input, int e, MultiHeadWeights& w, std::string& message) {
  const std::size_t ue = e;
  w.embed_dim = e;
  return read_floats(input, "inProjWeight", 3 * ue * ue, w.in_proj_weight, message) &&
         read_floats(input, "inProjBias", 3 * ue, w.in_proj_bias, message) &&
         read_floats(input, "outProjWeight", ue * ue, w.out_proj_weight, message) &&
         read_floats(input, "outProjBias", ue, w.out_proj_bias, message);
}

// Weights given once by prepareWeights(), packed for the fast GEMM, kept until released.
std::map<int, MultiHeadWeights> prepared_weights;
int next_handle = 1;

val prepare_weights_js(val input) {
  const int e = input["embedDim"].as<int>();
  if (e <= 0) return error("embedDim must be positive");
  std::string message;
  MultiHeadWeights w;
  if (!read_weights(input, e, w, message)) return error(message);
  prepare(w);
  const int handle = next_handle++;
  prepared_weights.emplace(handle, std::move(w));
  val result = val::object();
  result.set("handle", handle);
  return result;
}

void release_weights_js(int handle) { prepared_weights.erase(handle); }

val multi_head_attention_js(val input) {
  const int batch = input["batch"].as<int>(), sq = input["querySeq"].as<int>(), sk = input["keySeq"].as<int>();
  const int e = input["embedDim"].as<int>();
  if (batch <= 0 || sq <= 0 || sk <= 0 || e <= 0) return error("sizes must be positive");
  const std::size_t ub = batch, usq = sq, usk = sk, ue = e;
  std::string message;
  std::vector<float> q, k, v;
  if (!read_floats(input, "query", ub * usq * ue, q, message) || !read_floats(input, "key", ub * usk * ue, k, message) ||
      !read_floats(input, "value", ub * usk * ue, v, message))
    return error(message);
  MultiHeadWeights given;
  const MultiHeadWeights* weights = &given;
  const int handle = input["weightsHandle"].as<int>();
  if (handle != 0) {
    const auto found = prepared_weights.find(handle);
    if (found == prepared_weights.end()) return error("these prepared weights were disposed");
    weights = &found->second;
  } else if (!read_weights(input, e, given, message)) {
    return error(message);
  }

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
  Result<MultiHeadResult> r = multi_head_attention(query, key, value, *weights, options);
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

// The last model built: typing reruns the same config, whose weights need not be remade.
std::unique_ptr<Model> cached_model;

val run_js(val texts, val sources, val config) {
  ModelConfig c;
  std::string message;
  if (!parse_config(config, c, message)) return error(message);
  if (!cached_model || cached_model->config() != c) cached_model = std::make_unique<Model>(c);
  Result<Trace> r = cached_model->run(emscripten::vecFromJSArray<std::string>(texts),
                                      emscripten::vecFromJSArray<std::string>(sources));
  if (!r) return error(r.error());
  const Trace& trace = r.value();
  // Two crossings instead of hundreds: every stage's values back to back in one
  // Float32Array, and one JSON text with the tokens and each stage's layer, name,
  // axes, shape and offset into that array.
  std::size_t total = 0;
  for (const Stage& stage : trace.stages) total += stage.tensor.size();
  std::vector<float> data;
  data.reserve(total);
  std::string meta = "{\"tokens\":" + tokens_json(trace.tokens) + ",\"sourceTokens\":" +
                     tokens_json(trace.source_tokens) + ",\"stages\":[";
  for (std::size_t i = 0; i < trace.stages.size(); ++i) {
    const Stage& stage = trace.stages[i];
    meta += (i ? ",{\"layer\":" : "{\"layer\":") + std::to_string(stage.layer) + ",\"name\":" + json_string(stage.name) +
            ",\"axes\":[";
    for (std::size_t a = 0; a < stage.tensor.axes.size(); ++a) meta += (a ? "," : "") + json_string(stage.tensor.axes[a]);
    meta += "],\"shape\":[";
    for (std::size_t a = 0; a < stage.tensor.shape.size(); ++a) meta += (a ? "," : "") + std::to_string(stage.tensor.shape[a]);
    meta += "],\"offset\":" + std::to_string(data.size()) + "}";
    data.insert(data.end(), stage.tensor.data.begin(), stage.tensor.data.end());
  }
  meta += "]}";
  val result = val::object();
  result.set("meta", meta);
  result.set("data", to_float32_array(data));
  return result;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_engine) {
  emscripten::function("_multiHeadAttention", &multi_head_attention_js);
  emscripten::function("_run", &run_js);
  emscripten::function("_prepareWeights", &prepare_weights_js);
  emscripten::function("_releaseWeights", &release_weights_js);
  emscripten::function("_heapInUse", &heap_bytes_in_use);
}
