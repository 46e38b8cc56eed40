// Embind bindings: handles and copies between JS values and core types; no math.
// The names are private (leading underscore): users see the TypeScript API in
// wasm/src, which validates arguments before they get here. These functions check
// sizes again, so that no call can make the core read past an array; problems come
// back as { error: { message, code, field } }, never as an abort. Long-lived state
// lives in handles (classes the TypeScript side disposes), not in globals.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#ifndef ATTENTION_LIGHT_BINDINGS
#include "analysis_bindings.hpp"
#include "patching_handle.hpp"
#endif
#include "attention/backend.hpp"
#include "attention/model.hpp"
#include "attention/multi_head.hpp"
#include "attention/parallel.hpp"
#include "attention/trace_json.hpp"
#include "attention/trainer.hpp"
#include "attention/transformer.hpp"
#include "attention/weights_io.hpp"
#ifndef ATTENTION_LIGHT_BINDINGS
#include "generation_handle.hpp"
#endif
#include "js_values.hpp"
#include "model_handle.hpp"

// heap_accounting.cpp: bytes held through operator new, for the leak tests.
std::size_t heap_bytes_in_use();
std::size_t heap_peak_bytes();
void reset_heap_peak();

using emscripten::val;
using namespace attention;
#ifndef ATTENTION_LIGHT_BINDINGS
using attention::js::ablation_ranking_js;
using attention::js::attention_rollout_js;
using attention::js::forward_ablated_js;
using attention::js::head_scores_js;
using attention::js::logit_attribution_js;
using attention::js::logit_lens_js;
#endif
using attention::js::ModelHandle;
using attention::js::parse_json;
using attention::js::read_forward_input;
using attention::js::read_heads;

namespace {

// The weights of one attention layer (API spelling in errors). kdim / vdim other than
// E take q/k/v_proj_weight instead of in_proj_weight; biases may be null (bias: false).
bool read_attention_weights(const val& in, MultiHeadWeights& w, val& failure) {
  const int e = in["embedDim"].as<int>();
  const std::size_t ue = e, kd = in["kdim"].as<std::size_t>(), vd = in["vdim"].as<std::size_t>();
  if (e <= 0 || kd == 0 || vd == 0) return failure = js::error("sizes must be positive"), false;
  w.embed_dim = e;
  w.kdim = static_cast<int>(kd);
  w.vdim = static_cast<int>(vd);
  std::vector<float> values;
  const auto read = [&](const char* name, std::size_t n, Parameter& p) {
    if (!js::read_floats(in[name], name, n, values, failure)) return false;
    p = std::move(values);
    return true;
  };
  const auto read_optional = [&](const char* name, std::size_t n, Parameter& p) {
    return in[name].isNull() || read(name, n, p);
  };
  if (w.separate_projections()) {
    if (!read("qProjWeight", ue * ue, w.q_proj_weight) || !read("kProjWeight", ue * kd, w.k_proj_weight) ||
        !read("vProjWeight", ue * vd, w.v_proj_weight))
      return false;
  } else if (!read("inProjWeight", 3 * ue * ue, w.in_proj_weight)) {
    return false;
  }
  return read_optional("inProjBias", 3 * ue, w.in_proj_bias) && read("outProjWeight", ue * ue, w.out_proj_weight) &&
         read_optional("outProjBias", ue, w.out_proj_bias);
}

val attend(const val& in, const MultiHeadWeights& weights) {
  const int batch = in["batch"].as<int>(), sq = in["querySeq"].as<int>(), sk = in["keySeq"].as<int>();
  const int e = in["embedDim"].as<int>();
  if (batch <= 0 || sq <= 0 || sk <= 0 || e <= 0 || e != weights.embed_dim) return js::error("sizes must be positive");
  const std::size_t ub = batch, usq = sq, usk = sk;
  const std::size_t kd = weights.key_dim(), vd = weights.value_dim();
  val failure = val::undefined();
  std::vector<float> q, k, v;
  if (!js::read_floats(in["query"], "query", ub * usq * e, q, failure) ||
      !js::read_floats(in["key"], "key", ub * usk * kd, k, failure) ||
      !js::read_floats(in["value"], "value", ub * usk * vd, v, failure))
    return failure;
  const bool self = in["selfAttention"].as<bool>();  // key and value are the query itself
  const Tensor query({"B", "Sq", "E"}, {batch, sq, e}, std::move(q));
  const Tensor key({"B", "Sk", "kdim"}, {batch, sk, static_cast<int>(kd)}, std::move(k));
  const Tensor value({"B", "Sk", "vdim"}, {batch, sk, static_cast<int>(vd)}, std::move(v));
  MultiHeadOptions options;
  options.heads = in["heads"].as<int>();
  options.causal = in["causal"].as<bool>();
  options.scale = in["scale"].as<bool>();
  options.need_weights = in["needWeights"].as<bool>();
  options.average_weights = in["averageAttnWeights"].as<bool>();
  Tensor padding, user_mask, float_mask;
  if (!in["keyPaddingMask"].isNull()) {
    if (!js::read_floats(in["keyPaddingMask"], "keyPaddingMask", ub * usk, padding.data, failure)) return failure;
    padding = Tensor({"B", "Sk"}, {batch, sk}, std::move(padding.data));
    options.key_padding_mask = &padding;
  }
  if (!in["attnMask"].isNull()) {
    if (!js::read_floats(in["attnMask"], "attnMask", usq * usk, user_mask.data, failure)) return failure;
    user_mask = Tensor({"Sq", "Sk"}, {sq, sk}, std::move(user_mask.data));
    options.attn_mask = &user_mask;
  }
  if (!in["attnMaskFloat"].isNull()) {
    if (!js::read_floats(in["attnMaskFloat"], "attnMask", usq * usk, float_mask.data, failure)) return failure;
    float_mask = Tensor({"Sq", "Sk"}, {sq, sk}, std::move(float_mask.data));
    options.attn_bias = &float_mask;
  }
  Result<MultiHeadResult> r = self ? multi_head_attention(query, query, query, weights, options)
                                   : multi_head_attention(query, key, value, weights, options);
  if (!r) return js::error(r.error_value());
  val result = val::object();
  result.set("output", js::to_float32_array(r.value().output.data));
  result.set("weights", options.need_weights ? js::to_float32_array(r.value().weights.data) : val::null());
  return result;
}

val multi_head_attention_js(val in) {
  MultiHeadWeights weights;
  val failure = val::undefined();
  if (!read_attention_weights(in, weights, failure)) return failure;
  return attend(in, weights);
}

// Weights given once by prepareWeights(): copied and checked once, packed on first use.
class PreparedAttention {
 public:
  explicit PreparedAttention(val in) : failure_(val::undefined()) { read_attention_weights(in, weights_, failure_); }
  val error() const { return failure_; }
  val attend(val in) const { return ::attend(in, weights_); }

 private:
  MultiHeadWeights weights_;
  val failure_;
};

// The playground model of the page: rebuilt when the settings change, reused while
// only the text does.
class PlaygroundRunner {
 public:
  val run(val texts, val sources, std::string config_json) {
    Result<Json> parsed = parse_json(config_json, "config");
    if (!parsed) return js::error(parsed.error_value());
    Result<ModelConfig> config = from_json(playground_schema(), parsed.value());
    if (!config) return js::error(config.error_value());
    if (!model_ || model_->config() != config.value()) model_ = std::make_unique<Model>(config.value());
    Result<Trace> r =
        model_->run(emscripten::vecFromJSArray<std::string>(texts), emscripten::vecFromJSArray<std::string>(sources));
    if (!r) return js::error(r.error_value());
    return js::trace_to_js(r.value());
  }

 private:
  std::unique_ptr<Model> model_;
};

// A model of a ModelSpec with named parameters: createModel() in the TypeScript API.
// A trainer of a model handle's model (shared: the model stays usable, and alive, while
// the trainer is). createTrainer() in the TypeScript API.
class TrainerHandle {
 public:
  TrainerHandle(const ModelHandle& model, std::string options_json, val data) : failure_(val::undefined()) {
    Result<std::unique_ptr<Trainer>> made = make(model.shared(), options_json, data);
    if (!made) {
      failure_ = js::error(made.error_value());
      return;
    }
    trainer_ = std::move(made.value());
  }
  val error() const { return failure_; }

  // n steps on batches of the task; the last step's report.
  val step(int n) {
    val report = val::undefined();
    for (int i = 0; i < n; ++i) {
      Result<StepReport> r = trainer_->step();
      if (!r) return js::error(r.error_value());
      report = report_to_js(r.value());
    }
    return report;
  }

  val step_batch(val in) {
    Result<StepReport> r = trainer_->step(read_batch(in));
    return r ? report_to_js(r.value()) : js::error(r.error_value());
  }

  val evaluate(val ablate) {
    Result<Evaluation> r = trainer_->evaluate(read_heads(ablate));
    if (!r) return js::error(r.error_value());
    val out = val::object();
    out.set("loss", r.value().loss);
    out.set("accuracy", r.value().accuracy);
    out.set("sequenceAccuracy", r.value().sequence_accuracy);
    out.set("examples", r.value().examples);
    return out;
  }

  val loss_and_gradients(val in) {
    Result<LossResult> r = attention::loss_and_gradients(trainer_->model(), read_batch(in));
    if (!r) return js::error(r.error_value());
    val gradients = val::array();
    trainer_->model().visit_parameters([&](const Parameter& p) {
      val entry = val::object();
      entry.set("name", p.name());
      entry.set("values", js::to_float32_array(p.grad));
      gradients.call<void>("push", entry);
    });
    val out = val::object();
    out.set("loss", r.value().loss);
    out.set("gradients", gradients);
    return out;
  }

  // A sample of the task, for probes and tests: { ids, targets } of one held-out example.
  val example(double seed) const {
    if (!trainer_->task()) return val::null();
    SplitMix64 rng(static_cast<std::uint64_t>(seed));
    const Example e = trainer_->task()->draw(rng, true);
    val out = val::object();
    out.set("ids", val::array(e.ids));
    out.set("targets", val::array(e.targets));
    return out;
  }

  // The task's token texts, by id (index = id), for display; null without a task.
  val token_texts() const {
    const Task* task = trainer_->task();
    if (!task) return val::null();
    val out = val::array();
    for (int id = 0; id < task->vocab_size(); ++id) out.call<void>("push", task->token_text(id));
    return out;
  }

  int snapshot() {
    snapshots_.push_back(trainer_->snapshot());
    return static_cast<int>(snapshots_.size()) - 1;
  }
  void restore(int index) { trainer_->restore(snapshots_.at(static_cast<std::size_t>(index))); }
  void release_snapshot(int index) { snapshots_.at(static_cast<std::size_t>(index)) = {}; }
  double steps() const { return static_cast<double>(trainer_->steps()); }

 private:
  static Result<std::unique_ptr<Trainer>> make(const std::shared_ptr<Transformer>& model, const std::string& json,
                                               const val& data) {
    Result<Json> parsed = parse_json(json, "options");
    if (!parsed) return parsed.error_value();
    const Json& o = parsed.value();
    Result<OptimizerOptions> optimizer = from_json(optimizer_schema(), o["optimizer"]);
    if (!optimizer) return optimizer.error_value();
    Result<TrainerSettings> settings = from_json(trainer_schema(), o["settings"]);
    if (!settings) return settings.error_value();
    std::unique_ptr<Task> task;
    if (o["task"].is_object()) {
      Result<TaskOptions> options = from_json(task_schema(), o["task"]);
      if (!options) return options.error_value();
      Result<std::unique_ptr<Task>> made = make_task(options.value());
      if (!made) return made.error_value();
      task = std::move(made.value());
    } else if (!data.isNull()) {
      Result<std::unique_ptr<Task>> made =
          make_data_task(js::read_ints(data["ids"]), js::read_ints(data["targets"]), data["batch"].as<int>(),
                         data["seq"].as<int>(), model->spec().vocab_size);
      if (!made) return made.error_value();
      task = std::move(made.value());
    }
    return Trainer::create(model, optimizer.value(), settings.value(), std::move(task));
  }

  static TrainingBatch read_batch(const val& in) {
    TrainingBatch b;
    b.input = read_forward_input(in);
    b.targets = js::read_ints(in["targets"]);
    return b;
  }

  static val report_to_js(const StepReport& r) {
    val out = val::object();
    out.set("step", static_cast<double>(r.step));
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    out.set("sequenceAccuracy", r.sequence_accuracy);
    out.set("gradNorm", r.grad_norm);
    out.set("lr", r.lr);
    return out;
  }

  std::unique_ptr<Trainer> trainer_;
  std::vector<Trainer::Snapshot> snapshots_;
  val failure_;
};

std::string describe_js() { return dump_json(engine_description()); }

// The kernels the fast path runs in this .wasm (which build, relaxed SIMD or not).
val fast_kernels_js() {
  const attention::FastKernels kernels = attention::fast_kernels();
  val result = val::object();
  result.set("gemm", kernels.gemm);
  result.set("softmax", kernels.softmax);
  result.set("geluTanh", kernels.gelu_tanh);
  result.set("relaxedSimd", kernels.relaxed_simd);
  result.set("int8Dot", kernels.int8_dot);
  return result;
}

// What a task's examples look like before any model exists: its vocabulary (token texts
// by id) and its sequence length, so a caller can size a model for it.
val describe_task_js(std::string options_json) {
  Result<Json> parsed = parse_json(options_json, "task");
  if (!parsed) return js::error(parsed.error_value());
  Result<TaskOptions> options = from_json(task_schema(), parsed.value());
  if (!options) return js::error(options.error_value());
  Result<std::unique_ptr<Task>> task = make_task(options.value());
  if (!task) return js::error(task.error_value());
  val vocabulary = val::array();
  for (int id = 0; id < task.value()->vocab_size(); ++id) vocabulary.call<void>("push", task.value()->token_text(id));
  val out = val::object();
  out.set("vocabSize", task.value()->vocab_size());
  out.set("seqLen", task.value()->seq_len());
  out.set("vocabulary", vocabulary);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_engine) {
  emscripten::function("_describe", &describe_js);
  emscripten::function("_describeTask", &describe_task_js);
  // Threads the engine's parallel loops may use (the threaded build; others stay at 1).
  emscripten::function("_setThreads", &attention::set_max_threads);
  emscripten::function("_multiHeadAttention", &multi_head_attention_js);
  emscripten::function("_heapInUse", &heap_bytes_in_use);
  emscripten::function("_heapPeak", &heap_peak_bytes);
  emscripten::function("_resetHeapPeak", &reset_heap_peak);
  emscripten::function("_fastKernels", &fast_kernels_js);
  emscripten::function("_limitInt8Dot", &attention::limit_int8_dot);
  emscripten::class_<PreparedAttention>("_PreparedAttention")
      .constructor<val>()
      .function("error", &PreparedAttention::error)
      .function("attend", &PreparedAttention::attend);
  emscripten::class_<PlaygroundRunner>("_PlaygroundRunner").constructor<>().function("run", &PlaygroundRunner::run);
  emscripten::class_<ModelHandle>("_Model")
      .constructor<std::string, std::string, double>()
      .function("error", &ModelHandle::error)
      .function("specJson", &ModelHandle::spec_json)
      .function("parametersJson", &ModelHandle::parameters_json)
      .function("parameter", &ModelHandle::parameter)
      .function("loadWeights", &ModelHandle::load_weights)
      .function("saveWeights", &ModelHandle::save_weights)
      .function("weightBytes", &ModelHandle::weight_bytes)
      .function("forward", &ModelHandle::forward)
#ifndef ATTENTION_LIGHT_BINDINGS
      .function("headScores", &head_scores_js)
      .function("logitLens", &logit_lens_js)
      .function("logitAttribution", &logit_attribution_js)
      .function("attentionRollout", &attention_rollout_js)
      .function("startPatching", &attention::js::start_patching_js, emscripten::allow_raw_pointers())
      .function("forwardAblated", &forward_ablated_js)
      .function("ablationRanking", &ablation_ranking_js)
#endif
      ;
#ifndef ATTENTION_LIGHT_BINDINGS
  // Not in the element's light engine (ATTENTION_LIGHT_BINDINGS, wasm/CMakeLists.txt): the
  // element draws, trains and reads checkpoints; it neither generates nor runs the head tools.
  emscripten::class_<attention::js::GenerationHandle>("_Generation")
      .constructor<const ModelHandle&, val>()
      .function("error", &attention::js::GenerationHandle::error)
      .function("step", &attention::js::GenerationHandle::step)
      .function("fork", &attention::js::GenerationHandle::fork, emscripten::allow_raw_pointers())
      .function("tokens", &attention::js::GenerationHandle::tokens)
      .function("promptLength", &attention::js::GenerationHandle::prompt_length)
      .function("done", &attention::js::GenerationHandle::done);
  emscripten::class_<attention::js::PatchingHandle>("_Patching")
      .function("error", &attention::js::PatchingHandle::error)
      .function("step", &attention::js::PatchingHandle::step)
      .function("result", &attention::js::PatchingHandle::result);
#endif
  emscripten::class_<TrainerHandle>("_Trainer")
      .constructor<const ModelHandle&, std::string, val>()
      .function("error", &TrainerHandle::error)
      .function("step", &TrainerHandle::step)
      .function("stepBatch", &TrainerHandle::step_batch)
      .function("evaluate", &TrainerHandle::evaluate)
      .function("lossAndGradients", &TrainerHandle::loss_and_gradients)
      .function("example", &TrainerHandle::example)
      .function("tokenTexts", &TrainerHandle::token_texts)
      .function("snapshot", &TrainerHandle::snapshot)
      .function("restore", &TrainerHandle::restore)
      .function("releaseSnapshot", &TrainerHandle::release_snapshot)
      .function("steps", &TrainerHandle::steps);
}
