// See attention/analysis/patching.hpp. The layers run through training's sub-layer forward
// and backward (src/train/layer_backprop.hpp), so exact patching, attribution patching and
// training share one arithmetic. Shapes: S positions, E = d_model, H heads of d_h,
// qd = H d_h, n patched variants of one prompt in a batch (rows = n S).
#include "attention/analysis/patching.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "attention/layers.hpp"
#include "attention/linear.hpp"
#include "attention/masks.hpp"
#include "src/train/layer_backprop.hpp"

namespace attention {

namespace {

using namespace train;

// Floats one chunk of exact patching may hold while it runs a layer (64 MiB): the number
// of variants batched together is cut to fit.
constexpr double kChunkFloats = 16.0 * (1 << 20);

struct LayerTape {
  SublayerTape sub[2];  // self-attention, feed-forward
};

Error out_of_range(const std::string& field, int value, int size) {
  return Error(field + " must be 0.." + std::to_string(size - 1) + ", got " + std::to_string(value),
               error_code::kOutOfRange, field);
}

StackShape shape_of(int batch, int seq) {
  StackShape shape;
  shape.batch = batch;
  shape.seq = seq;
  shape.padding = key_padding_mask(std::vector<int>(static_cast<std::size_t>(batch), seq), seq);
  return shape;
}

// Layer l's self-attention as the forward pass runs it: causal in a decoder-only stack,
// with the layer's RoPE table, ALiBi and window.
AttentionCall self_attention_call(const ModelSpec& s, const StackShape& stack, int layer, const RopeTables& ropes) {
  AttentionCall call{&stack, &stack, s.causal};
  const LayerPositions positions = layer_positions(s, layer, ropes);
  call.rope = positions.rope;
  call.alibi = positions.alibi;
  call.window = positions.window;
  return call;
}

// Layer l over x (rows, E) -> (rows, E). merged_in: the heads' contexts (rows, qd) out_proj
// reads instead of the layer's own (heads patching), or null; merged_out: receives the
// layer's own contexts, or null; tape: kept for a backward, or null.
Floats layer_forward(const Transformer& m, int l, const Floats& x, const StackShape& stack, const RopeTables& ropes,
                     const Floats* merged_in, Floats* merged_out, LayerTape* tape) {
  const ModelSpec& s = m.spec();
  const EncoderLayerWeights& w = m.encoder_layers()[static_cast<std::size_t>(l)];
  LayerTape scratch;
  LayerTape& t = tape ? *tape : scratch;
  const int rows = stack.rows();
  const AttentionCall call = self_attention_call(s, stack, l, ropes);
  Floats y = sublayer_forward(x, rows, w.norm1, w.post_norm1, s, t.sub[0], [&](const Floats& a) {
    if (!merged_in) {
      Floats out = attention_forward(a, nullptr, w.self_attn, call, s, Backend::Fast, t.sub[0].attention);
      if (merged_out) *merged_out = t.sub[0].attention.merged;
      return out;
    }
    Floats out = linear_slice(*merged_in, rows, s.heads * s.head_dim(), w.self_attn.out_proj_weight,
                              w.self_attn.out_proj_bias, 0, s.d_model, Backend::Fast);
    if (s.attn_activation != Activation::None)
      for (float& v : out) v = activate(v, s.attn_activation);  // as attention_forward
    return out;
  });
  return sublayer_forward(y, rows, w.norm2, w.post_norm2, s, t.sub[1],
                          [&](const Floats& a) { return ffn_forward(a, rows, w.ffn, s, Backend::Fast, t.sub[1].ffn); });
}

// The unembedding rows of good and bad: W[good] - W[bad] (E), and the head's bias difference.
Floats direction(const Transformer& m, int good, int bad, float* bias_diff) {
  const ModelSpec& s = m.spec();
  const Parameter& w = s.tied_head() ? m.embed() : m.head().weight;
  Floats d(static_cast<std::size_t>(s.d_model));
  for (int i = 0; i < s.d_model; ++i)
    d[static_cast<std::size_t>(i)] = w.data()[static_cast<std::size_t>(good) * s.d_model + i] -
                                     w.data()[static_cast<std::size_t>(bad) * s.d_model + i];
  const Parameter& b = m.head().bias;
  *bias_diff = b.empty() ? 0.0f : b.data()[good] - b.data()[bad];
  return d;
}

// What the unembedding reads from rows (count, E) of the stack's output: the final norm when
// the spec has one, then an MLM head's transform (dense, activation, norm; BERT) when it has
// one, as the forward pass's head. The tape keeps what readout_backward needs.
struct ReadoutTape {
  NormTape final_norm, mlm_norm;
  Floats dense_in, pre;  // the transform's input and its dense output (count, E)
};

Floats readout(const Transformer& m, Floats rows, int count, ReadoutTape& t) {
  const ModelSpec& s = m.spec();
  const int e = s.d_model;
  if (s.has_final_norm()) rows = norm_forward(rows, count, e, m.final_norm(), t.final_norm);
  if (!s.mlm_head()) return rows;
  t.dense_in = std::move(rows);
  t.pre = linear_slice(t.dense_in, count, e, m.mlm_dense().weight, m.mlm_dense().bias, 0, e, Backend::Fast);
  Floats out = t.pre;
  for (float& v : out) v = activate(v, s.activation);  // as Transformer::mlm_transform
  return s.layer_norm ? norm_forward(out, count, e, m.mlm_norm(), t.mlm_norm) : out;
}

// d (one row's readout, E) -> d (that row of the stack's output); adds into the head's and
// norms' gradients.
Floats readout_backward(Transformer& m, Floats d, const ReadoutTape& t) {
  const ModelSpec& s = m.spec();
  const int e = s.d_model;
  if (s.mlm_head()) {
    if (s.layer_norm) d = norm_backward(d, 1, e, m.mlm_norm(), t.mlm_norm);
    Floats dpre = zeros(d.size());
    grad::activation_backward(t.pre.data(), d.data(), d.size(), s.activation, dpre.data());
    Floats din = zeros(static_cast<std::size_t>(e));
    linear_slice_backward(t.dense_in, dpre, 1, e, m.mlm_dense().weight, m.mlm_dense().bias, 0, e, &din, Backend::Fast);
    d = std::move(din);
  }
  if (s.has_final_norm()) d = norm_backward(d, 1, e, m.final_norm(), t.final_norm);
  return d;
}

// d = logit[good] - logit[bad] of each of `count` rows (E) of the stack's output.
std::vector<float> logit_differences(const Transformer& m, const float* rows, int count, int good, int bad) {
  const ModelSpec& s = m.spec();
  const int e = s.d_model;
  ReadoutTape scratch;
  const Floats read = readout(m, Floats(rows, rows + static_cast<std::size_t>(count) * e), count, scratch);
  float bias_diff = 0;
  const Floats d = direction(m, good, bad, &bias_diff);
  std::vector<float> out(static_cast<std::size_t>(count));
  for (int r = 0; r < count; ++r) {
    double sum = bias_diff;
    for (int i = 0; i < e; ++i)
      sum += static_cast<double>(read[static_cast<std::size_t>(r) * e + i]) * d[static_cast<std::size_t>(i)];
    out[static_cast<std::size_t>(r)] = static_cast<float>(sum);
  }
  return out;
}

// d merged (rows, qd) = d out_proj's output (rows, E) . out_proj.weight (E, qd), through
// attnActivation first when the spec has one.
Floats merged_gradient(const Floats& dout, const MultiHeadWeights& w, const ModelSpec& s, const AttentionTape& t,
                       int rows) {
  const int e = s.d_model, qd = s.heads * s.head_dim();
  Floats dproj = s.attn_activation == Activation::None ? dout : zeros(dout.size());
  if (s.attn_activation != Activation::None)  // adds into dproj
    grad::activation_backward(t.projected.data(), dout.data(), dout.size(), s.attn_activation, dproj.data());
  Floats dmerged = zeros(static_cast<std::size_t>(rows) * qd);
  const float* weight = w.out_proj_weight.data();
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < e; ++i) {
      const float a = dproj[static_cast<std::size_t>(r) * e + i];
      const float* wrow = weight + static_cast<std::size_t>(i) * qd;
      float* out = dmerged.data() + static_cast<std::size_t>(r) * qd;
      for (int j = 0; j < qd; ++j) out[j] += a * wrow[j];
    }
  return dmerged;
}

}  // namespace

// The corrupted run kept for attribution's backward.
struct PatchingRun::Tape {
  StackShape stack;
  RopeTables ropes;
  std::vector<LayerTape> layers;  // (L)
  ReadoutTape readout;            // of the position's row
};

namespace {

// One prompt through the stack (batch 1), keeping each layer's input and contexts (and the
// tape when given); returns the stack's output row at `position` (E).
Result<Floats> run_prompt(const Transformer& m, const std::vector<int>& ids, int position,
                          PatchingRun::Activations& acts, PatchingRun::Tape* tape) {
  const ModelSpec& s = m.spec();
  const int seq = static_cast<int>(ids.size()), e = s.d_model;
  Result<Tensor> input = m.embed_input(ids, 1, seq, kEncoderStack);
  if (!input) return input.error_value();
  Floats x = std::move(input.value().data);
  PatchingRun::Tape scratch;
  PatchingRun::Tape& t = tape ? *tape : scratch;
  t.stack = shape_of(1, seq);
  t.ropes = rope_tables(s, seq);
  if (tape) t.layers.resize(static_cast<std::size_t>(s.layers));
  acts.resid.resize(static_cast<std::size_t>(s.layers));
  acts.merged.resize(static_cast<std::size_t>(s.layers));
  for (int l = 0; l < s.layers; ++l) {
    acts.resid[static_cast<std::size_t>(l)] = x;
    x = layer_forward(m, l, x, t.stack, t.ropes, nullptr, &acts.merged[static_cast<std::size_t>(l)],
                      tape ? &t.layers[static_cast<std::size_t>(l)] : nullptr);
  }
  Floats row(x.begin() + static_cast<std::ptrdiff_t>(position) * e,
             x.begin() + static_cast<std::ptrdiff_t>(position + 1) * e);
  if (tape) readout(m, row, 1, t.readout);
  return row;
}

}  // namespace

Result<PatchOver> parse_patch_over(const std::string& name) {
  if (name == "resid") return PatchOver::Resid;
  if (name == "heads") return PatchOver::Heads;
  return Error("over must be 'resid' or 'heads', got '" + name + "'", error_code::kInvalidArgument, "over");
}

Result<PatchMethod> parse_patch_method(const std::string& name) {
  if (name == "exact") return PatchMethod::Exact;
  if (name == "attribution") return PatchMethod::Attribution;
  return Error("method must be 'exact' or 'attribution', got '" + name + "'", error_code::kInvalidArgument, "method");
}

Result<PatchingRun> PatchingRun::start(const Transformer& model, const PatchingOptions& o) {
  const ModelSpec& s = model.spec();
  if (s.encoder_decoder())
    return Error("patching reads a single stack; the model is an encoder–decoder", error_code::kInvalidArgument,
                 "model");
  if (s.head == OutputHead::None)
    return Error("patching reads logits; the model has no output head", error_code::kInvalidArgument, "model");
  if (Status ok = model.writable(); !ok)
    return Error("patching runs the float32 forward and backward: " + ok.error_value().message, error_code::kReadOnly,
                 "model");
  const int seq = static_cast<int>(o.clean.size());
  if (seq < 1) return Error("clean must hold at least one token", error_code::kOutOfRange, "clean");
  if (o.corrupted.size() != o.clean.size())
    return Error("corrupted has " + std::to_string(o.corrupted.size()) + " tokens, clean " + std::to_string(seq) +
                     ": patching needs prompts of the same length",
                 error_code::kShapeMismatch, "corrupted");
  if (o.position < -1 || o.position >= seq) return out_of_range("position", o.position, seq);
  if (o.good < 0 || o.good >= s.vocab_size) return out_of_range("tokens", o.good, s.vocab_size);
  if (o.bad < 0 || o.bad >= s.vocab_size) return out_of_range("tokens", o.bad, s.vocab_size);
  for (const auto& [ids, field] : {std::pair{&o.clean, "clean"}, std::pair{&o.corrupted, "corrupted"}}) {
    ForwardInput in;
    in.ids = *ids;
    in.batch = 1;
    in.seq = seq;
    if (Status ok = model.check_input(in, /*recording=*/true); !ok) {
      Error error = ok.error_value();
      if (error.field == "ids") error.field = field;
      return error;
    }
  }

  PatchingRun run;
  run.model_ = &model;
  run.options_ = o;
  run.seq_ = seq;
  run.position_ = o.position < 0 ? seq - 1 : o.position;
  if (o.method == PatchMethod::Attribution) run.tape_ = std::make_shared<Tape>();
  Result<Floats> clean = run_prompt(model, o.clean, run.position_, run.clean_, nullptr);
  if (!clean) return clean.error_value();
  Result<Floats> corrupted = run_prompt(model, o.corrupted, run.position_, run.corrupted_, run.tape_.get());
  if (!corrupted) return corrupted.error_value();
  Patching& r = run.result_;
  r.clean_diff = logit_differences(model, clean.value().data(), 1, o.good, o.bad)[0];
  r.corrupted_diff = logit_differences(model, corrupted.value().data(), 1, o.good, o.bad)[0];
  if (r.clean_diff == r.corrupted_diff)
    return Error("the clean and corrupted prompts give the same logit difference (" + std::to_string(r.clean_diff) +
                     "): there is nothing to recover",
                 error_code::kInvalidArgument, "tokens");
  r.rows = s.layers;
  r.columns = o.over == PatchOver::Resid ? seq : s.heads;
  r.recovered.assign(static_cast<std::size_t>(r.rows) * r.columns, 0.0f);
  return run;
}

int PatchingRun::total_steps() const { return options_.method == PatchMethod::Exact ? model_->spec().layers : 1; }

Status PatchingRun::step() {
  if (done()) return Ok{};
  const Transformer& m = *model_;
  const ModelSpec& s = m.spec();
  const int seq = seq_, e = s.d_model, qd = s.heads * s.head_dim(), d_h = s.head_dim();
  const bool resid = options_.over == PatchOver::Resid;
  const double denominator = static_cast<double>(result_.clean_diff) - result_.corrupted_diff;
  const auto share = [&](double change) { return static_cast<float>(change / denominator); };

  if (options_.method == PatchMethod::Attribution) {
    // The backward writes parameter gradients: set the model's aside, drop each layer's
    // as soon as it is done (so at most one layer's are held), and put them back.
    Transformer& writable = const_cast<Transformer&>(m);
    std::vector<std::vector<float>> saved;
    writable.visit_parameters([&](Parameter& p) {
      saved.push_back(std::move(p.grad));
      p.grad = {};
    });
    const auto drop = [&] { writable.visit_parameters([](Parameter& p) { std::vector<float>().swap(p.grad); }); };
    Tape& t = *tape_;
    float bias_diff = 0;
    // d d / d (the row the unembedding reads) -> d d / d (the stack's output row)
    const Floats dhidden = readout_backward(writable, direction(m, options_.good, options_.bad, &bias_diff), t.readout);
    Floats dx = zeros(static_cast<std::size_t>(seq) * e);
    std::copy(dhidden.begin(), dhidden.end(), dx.begin() + static_cast<std::ptrdiff_t>(position_) * e);
    for (int l = s.layers - 1; l >= 0; --l) {
      const std::size_t li = static_cast<std::size_t>(l);
      EncoderLayerWeights& w = writable.encoder_layers()[li];
      const LayerTape& lt = t.layers[li];
      const AttentionCall call = self_attention_call(s, t.stack, l, t.ropes);
      dx = sublayer_backward(dx, seq, w.norm2, w.post_norm2, s, lt.sub[1], [&](const Floats& d) {
        return ffn_backward(d, seq, w.ffn, s, Backend::Fast, lt.sub[1].ffn);
      });
      Floats dmerged;
      dx = sublayer_backward(dx, seq, w.norm1, w.post_norm1, s, lt.sub[0], [&](const Floats& d) {
        dmerged = merged_gradient(d, w.self_attn, s, lt.sub[0].attention, seq);
        return attention_backward(d, w.self_attn, call, s, Backend::Fast, lt.sub[0].attention, nullptr);
      });
      drop();
      // dx is now d d / d (the residual entering layer l): (S, E).
      const Floats& a_clean = resid ? clean_.resid[li] : clean_.merged[li];
      const Floats& a_corrupted = resid ? corrupted_.resid[li] : corrupted_.merged[li];
      const Floats& grad = resid ? dx : dmerged;
      const int width = resid ? e : qd;
      for (int c = 0; c < result_.columns; ++c) {
        double sum = 0;
        for (int p = 0; p < seq; ++p) {
          if (resid && p != c) continue;
          const int from = resid ? 0 : c * d_h, to = resid ? e : (c + 1) * d_h;
          for (int i = from; i < to; ++i) {
            const std::size_t at = static_cast<std::size_t>(p) * width + i;
            sum += (static_cast<double>(a_clean[at]) - a_corrupted[at]) * grad[at];
          }
        }
        result_.recovered[li * result_.columns + c] = share(sum);
      }
    }
    std::size_t next = 0;
    writable.visit_parameters([&](Parameter& p) { p.grad = std::move(saved[next++]); });
    tape_.reset();
    done_ = 1;
    return Ok{};
  }

  // Exact: layer l's patches, in batches of n variants of the corrupted prompt.
  const int l = done_;
  const std::size_t li = static_cast<std::size_t>(l);
  const int variants = result_.columns;
  const double per_variant = static_cast<double>(seq) * (10.0 * e + 4.0 * qd + 4.0 * s.ffn_dim + 3.0 * s.heads * seq);
  const int chunk = std::max(1, std::min(variants, static_cast<int>(kChunkFloats / per_variant)));
  const RopeTables ropes = rope_tables(s, seq);
  const std::size_t prompt = static_cast<std::size_t>(seq) * e, prompt_merged = static_cast<std::size_t>(seq) * qd;
  for (int first = 0; first < variants; first += chunk) {
    const int n = std::min(chunk, variants - first);
    const StackShape stack = shape_of(n, seq);
    Floats x(prompt * n), merged;
    for (int v = 0; v < n; ++v)
      std::copy(corrupted_.resid[li].begin(), corrupted_.resid[li].end(),
                x.begin() + static_cast<std::ptrdiff_t>(v * prompt));
    if (resid) {
      for (int v = 0; v < n; ++v) {  // variant v: position first + v from the clean run
        const std::size_t p = static_cast<std::size_t>(first + v) * e;
        std::copy_n(clean_.resid[li].begin() + static_cast<std::ptrdiff_t>(p), e,
                    x.begin() + static_cast<std::ptrdiff_t>(v * prompt + p));
      }
    } else {
      merged.resize(prompt_merged * n);
      for (int v = 0; v < n; ++v) {  // variant v: head first + v's context from the clean run, every position
        std::copy(corrupted_.merged[li].begin(), corrupted_.merged[li].end(),
                  merged.begin() + static_cast<std::ptrdiff_t>(v * prompt_merged));
        for (int p = 0; p < seq; ++p) {
          const std::size_t from = static_cast<std::size_t>(p) * qd + static_cast<std::size_t>(first + v) * d_h;
          std::copy_n(clean_.merged[li].begin() + static_cast<std::ptrdiff_t>(from), d_h,
                      merged.begin() + static_cast<std::ptrdiff_t>(v * prompt_merged + from));
        }
      }
    }
    x = layer_forward(m, l, x, stack, ropes, resid ? nullptr : &merged, nullptr, nullptr);
    for (int next = l + 1; next < s.layers; ++next)
      x = layer_forward(m, next, x, stack, ropes, nullptr, nullptr, nullptr);
    Floats rows(static_cast<std::size_t>(n) * e);
    for (int v = 0; v < n; ++v)
      std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(v * prompt + static_cast<std::size_t>(position_) * e), e,
                  rows.begin() + static_cast<std::ptrdiff_t>(v) * e);
    const std::vector<float> d = logit_differences(m, rows.data(), n, options_.good, options_.bad);
    for (int v = 0; v < n; ++v)
      result_.recovered[li * variants + static_cast<std::size_t>(first + v)] =
          share(static_cast<double>(d[static_cast<std::size_t>(v)]) - result_.corrupted_diff);
  }
  ++done_;
  return Ok{};
}

Result<Patching> activation_patching(const Transformer& model, const PatchingOptions& options) {
  Result<PatchingRun> run = PatchingRun::start(model, options);
  if (!run) return run.error_value();
  while (!run.value().done())
    if (Status ok = run.value().step(); !ok) return ok.error_value();
  return run.value().result();
}

}  // namespace attention
