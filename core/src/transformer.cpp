// The forward pass: input checks, embeddings, the encoder (and decoder) layers, the output
// head. The parameters and their initialisation are in transformer_params.cpp.
#include "attention/transformer.hpp"

#include <algorithm>
#include <cmath>

#include "attention/masks.hpp"
#include "attention/numeric.hpp"
#include "attention/positional.hpp"

namespace attention {

using error_code::kOutOfRange;
using error_code::kShapeMismatch;

LayerOptions layer_options(const ModelSpec& s, Backend backend) {
  LayerOptions o;
  o.heads = s.heads;
  o.kv_heads = s.kv_head_count();
  o.head_dim = s.head_dim();
  o.score_scale = score_scale(s);
  o.scale = s.scale;
  o.residual = s.residual;
  o.activation = s.activation;
  o.attn_activation = s.attn_activation;
  o.layer_norm = s.layer_norm;
  o.norm = s.norm;
  o.backend = backend;
  return o;
}

namespace {

Status check_ids(const char* name, const std::vector<int>& ids, int batch, int seq, int vocab,
                 const std::vector<int>& lengths, const char* lengths_name, int max_seq) {
  if (batch < 1)
    return Error{std::string("batch must be at least 1, got ") + std::to_string(batch), kOutOfRange, "batch"};
  if (seq < 1 || seq > max_seq)
    return Error{std::string(name) + " sequence length must be between 1 and maxSeq (" + std::to_string(max_seq) +
                     "), got " + std::to_string(seq),
                 kOutOfRange, name};
  if (ids.size() != static_cast<std::size_t>(batch) * seq)
    return Error{std::string(name) + " has " + std::to_string(ids.size()) + " ids, expected (B, S) = (" +
                     std::to_string(batch) + ", " + std::to_string(seq) + ") = " + std::to_string(batch * seq),
                 kShapeMismatch, name};
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= vocab)
      return Error{std::string(name) + "[" + std::to_string(i) + "] is " + std::to_string(ids[i]) +
                       ", outside the vocabulary 0.." + std::to_string(vocab - 1),
                   kOutOfRange, name};
  if (!lengths.empty()) {
    if (lengths.size() != static_cast<std::size_t>(batch))
      return Error{std::string(lengths_name) + " has " + std::to_string(lengths.size()) +
                       " entries, expected one per sequence (" + std::to_string(batch) + ")",
                   kShapeMismatch, lengths_name};
    for (std::size_t b = 0; b < lengths.size(); ++b)
      if (lengths[b] < 0 || lengths[b] > seq)
        return Error{std::string(lengths_name) + "[" + std::to_string(b) + "] is " + std::to_string(lengths[b]) +
                         ", outside 0.." + std::to_string(seq),
                     kOutOfRange, lengths_name};
  }
  return Ok{};
}

std::vector<int> full_lengths(const std::vector<int>& lengths, int batch, int seq) {
  return lengths.empty() ? std::vector<int>(static_cast<std::size_t>(batch), seq) : lengths;
}

}  // namespace

RopeTables rope_tables(const ModelSpec& s, int positions) {
  RopeTables t;
  if (s.positions != Positions::Rope) return t;
  RopeSettings r;
  r.rotary_dim = s.rotary_dim();
  r.theta = s.rope_theta;
  r.scaling = s.rope_scaling;
  r.factor = s.rope_factor;
  r.low_freq_factor = s.rope_low_freq_factor;
  r.high_freq_factor = s.rope_high_freq_factor;
  r.original_context = s.rope_original_context;
  t.global = rope_table(r, positions);
  if (s.window > 0 && s.rope_local_theta > 0) {  // Gemma 3's local layers: their own base, unscaled
    r.theta = s.rope_local_theta;
    r.scaling = RopeScaling::None;
    t.local = rope_table(r, positions);
  }
  return t;
}

LayerPositions layer_positions(const ModelSpec& s, int layer, const RopeTables& tables) {
  LayerPositions p;
  const bool local = s.local_layer(layer);
  if (s.positions == Positions::Rope) p.rope = local && tables.local.rotary_dim > 0 ? &tables.local : &tables.global;
  p.alibi = s.positions == Positions::Alibi;
  p.window = local ? s.window : 0;
  return p;
}

float score_scale(const ModelSpec& s) {
  return s.query_pre_attn_scalar > 0 ? static_cast<float>(1.0 / std::sqrt(s.query_pre_attn_scalar)) : 0.0f;
}

double estimate_forward_floats(const ModelSpec& s, int batch, int seq, int source_seq, bool recording) {
  const double b = batch, h = s.heads, f = s.ffn_dim * (s.ffn == FfnKind::Gated ? 2.0 : 1.0), v = s.vocab_size;
  // The widest of the residual stream and the heads' concatenation (H d_h may exceed E).
  const double e = std::max(s.d_model, s.heads * s.head_dim());
  const double activated = s.attn_activation == Activation::None ? 0 : 1;  // its own (B,Sq,E) stage
  const auto attention_block = [&](double sq, double sk) {
    // projections, splits, context, merged, output ~ 12 (B,S,E); scores..weights 4 (B,H,Sq,Sk); masks
    return 12 * b * (sq + sk) * e + activated * b * sq * e + 4 * b * h * sq * sk + 2 * b * sq * sk;
  };
  const auto layer = [&](double sq, bool cross, double sk) {
    double n = attention_block(sq, sq) + 3 * b * sq * f + 8 * b * sq * e;
    if (cross) n += attention_block(sq, sk) + 2 * b * sq * e;
    return n;
  };
  const double sq = seq, ss = source_seq;
  const double logits = s.head == OutputHead::None ? 0 : b * sq * v;
  if (!recording) {  // one layer's working set at a time, plus the logits
    const double one = s.encoder_decoder() ? std::max(layer(sq, true, ss), layer(ss, false, 0)) : layer(sq, false, 0);
    return one + 4 * b * std::max(sq, ss) * e + logits;
  }
  double total = logits + 4 * b * sq * e;
  if (s.encoder_decoder())
    total += s.layers * layer(sq, true, ss) + s.encoder_layers * layer(ss, false, 0) + 4 * b * ss * e;
  else
    total += s.layers * layer(sq, false, 0);
  return total;
}

Result<Tensor> Transformer::embed_input(const std::vector<int>& ids, int batch, int seq, const std::string& stack,
                                        const Recorder& outer, const std::vector<int>& types,
                                        const std::vector<int>& positions) const {
  const int e = spec_.d_model;
  // h = embed[ids] (+ positions): (B, S, E)
  Tensor x({"B", "S", "E"}, {batch, seq, e});
  for (std::size_t r = 0; r < ids.size(); ++r)
    embed_.widen_rows(ids[r], 1, x.ptr() + r * e);  // a row of the table in any storage
  if (spec_.embed_scale) {                          // Gemma: embed[ids] * sqrt(E), the factor rounded to float32 first
    const float factor = static_cast<float>(std::sqrt(static_cast<double>(e)));
    for (float& v : x.data) v *= factor;
  }
  outer.record(StageId::Embeddings, x);
  if ((spec_.positions == Positions::Sinusoidal || spec_.positions == Positions::Learned) && !positions.empty()) {
    // Rows at given positions (a cached step): row r gets the encoding of positions[r].
    const int count = *std::max_element(positions.begin(), positions.end()) + 1;
    const Tensor sin_table = spec_.positions == Positions::Sinusoidal ? sinusoidal_encoding(count, e) : Tensor{};
    const float* table = spec_.positions == Positions::Sinusoidal ? sin_table.ptr() : pos_.data();
    for (std::size_t r = 0; r < positions.size(); ++r)
      for (int i = 0; i < e; ++i) x.data[r * e + i] += table[static_cast<std::size_t>(positions[r]) * e + i];
  } else if (spec_.positions == Positions::Sinusoidal || spec_.positions == Positions::Learned) {
    Tensor pe = spec_.positions == Positions::Sinusoidal
                    ? sinusoidal_encoding(seq, e)
                    : Tensor({"S", "E"}, {seq, e},
                             std::vector<float>(pos_.data(), pos_.data() + static_cast<std::size_t>(seq) * e));
    const std::size_t row = static_cast<std::size_t>(seq) * e;
    for (int b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < row; ++i) x.data[b * row + i] += pe.data[i];
    outer.record(StageId::Positions, std::move(pe));
  }
  if (spec_.type_vocab_size > 0) {
    // token_type[types]: (B, S, E), segment 0 where no types are given
    Tensor tt({"B", "S", "E"}, {batch, seq, e});
    for (std::size_t r = 0; r < ids.size(); ++r) {
      const int type = types.empty() ? 0 : types[r];
      std::copy_n(token_type_.data() + static_cast<std::size_t>(type) * e, e, tt.ptr() + r * e);
    }
    for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] += tt.data[i];
    outer.record(StageId::TokenTypes, std::move(tt));
  }
  if (spec_.has_embed_norm()) x = layer_norm(x, embed_norm_);
  if (!all_finite(x.ptr(), x.size())) return overflow_error("the " + stack + " input (embeddings + positions)");
  outer.record(StageId::Input, x);
  return x;
}

Status Transformer::check_input(const ForwardInput& in, bool recording, const RecordFilter* kept,
                                LogitRows logit_rows) const {
  const ModelSpec& s = spec_;
  const bool enc_dec = s.encoder_decoder();
  if (Status st = check_ids("ids", in.ids, in.batch, in.seq, s.vocab_size, in.lengths, "lengths", s.max_seq); !st)
    return st;
  if (!in.token_types.empty()) {
    if (s.type_vocab_size == 0)
      return Error{"this model has no token types (typeVocabSize 0); leave tokenTypes empty",
                   error_code::kInvalidArgument, "tokenTypes"};
    if (Status st = check_ids("tokenTypes", in.token_types, in.batch, in.seq, s.type_vocab_size, {}, "", s.max_seq);
        !st)
      return st;
  }
  if (enc_dec) {
    if (Status st = check_ids("sourceIds", in.source_ids, in.batch, in.source_seq, s.vocab_size, in.source_lengths,
                              "sourceLengths", s.max_seq);
        !st)
      return st;
  }
  const int source_seq = enc_dec ? in.source_seq : 0;
  double floats = estimate_forward_floats(s, in.batch, in.seq, source_seq, recording);
  if (recording && kept != nullptr)  // a few stages kept: the working set plus exactly those
    floats = std::min(floats, estimate_forward_floats(s, in.batch, in.seq, source_seq, false) +
                                  recorded_stage_floats(s, *kept, in.batch, in.seq, source_seq));
  if (s.head != OutputHead::None && logit_rows != LogitRows::All) {
    // The estimate counts (B, S, V) logits; a next-token view asks for (B, 1, V) or none.
    const double vocab = s.vocab_size, all = static_cast<double>(in.batch) * in.seq * vocab;
    floats -= all - (logit_rows == LogitRows::Last ? in.batch * vocab : 0.0);
  }
  if (floats > static_cast<double>(kMaxTraceFloats))
    return Error{"this forward pass would need about " + std::to_string(static_cast<long long>(floats * 4) >> 20) +
                     " MiB; the limit is " + std::to_string(kMaxTraceFloats * 4 >> 20) +
                     " MiB: use fewer layers, a smaller model, a shorter text or record fewer stages",
                 error_code::kLimitExceeded, "ids"};
  return Ok{};
}

Status Transformer::check_ablated_heads(const std::vector<HeadRef>& heads) const {
  if (heads.empty()) return Ok{};
  if (spec_.encoder_decoder())
    return Error{
        "head ablation switches off heads of a single stack's self-attention; this model is an "
        "encoder–decoder (encoderLayers > 0)",
        error_code::kInvalidArgument, "ablate"};
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const std::string at = "ablate[" + std::to_string(i) + "]";
    if (heads[i].layer < 0 || heads[i].layer >= spec_.layers)
      return Error{at + ".layer is " + std::to_string(heads[i].layer) + ", outside the layers 0.." +
                       std::to_string(spec_.layers - 1),
                   kOutOfRange, "ablate.layer"};
    if (heads[i].head < 0 || heads[i].head >= spec_.heads)
      return Error{at + ".head is " + std::to_string(heads[i].head) + ", outside the heads 0.." +
                       std::to_string(spec_.heads - 1),
                   kOutOfRange, "ablate.head"};
  }
  return Ok{};
}

Status Transformer::check_ablation(const ForwardOptions& options, int batch, int seq) const {
  if (Status st = check_ablated_heads(options.ablated_heads); !st) return st;
  for (std::size_t i = 0; i < options.ablated_heads.size(); ++i)
    if (options.ablated_heads[i].row < -1 || options.ablated_heads[i].row >= batch)
      return Error{"ablate[" + std::to_string(i) + "].row is " + std::to_string(options.ablated_heads[i].row) +
                       ", outside -1.." + std::to_string(batch - 1),
                   kOutOfRange, "ablate.row"};
  if (!options.ablated_mlps.empty() && spec_.encoder_decoder())
    return Error{
        "MLP ablation switches off layers of a single stack; this model is an encoder–decoder (encoderLayers > 0)",
        error_code::kInvalidArgument, "ablateMlps"};
  for (std::size_t i = 0; i < options.ablated_mlps.size(); ++i) {
    const MlpRef& m = options.ablated_mlps[i];
    if (m.layer < 0 || m.layer >= spec_.layers)
      return Error{"ablateMlps[" + std::to_string(i) + "] is " + std::to_string(m.layer) + ", outside the layers 0.." +
                       std::to_string(spec_.layers - 1),
                   kOutOfRange, "ablateMlps"};
    if (m.row < -1 || m.row >= batch)
      return Error{"ablateMlps[" + std::to_string(i) + "].row is " + std::to_string(m.row) + ", outside -1.." +
                       std::to_string(batch - 1),
                   kOutOfRange, "ablateMlps.row"};
  }
  if (const AblationMeans* means = options.means) {
    if (means->seq != seq)
      return Error{"the mean ablation's reference sequences have " + std::to_string(means->seq) +
                       " positions; this forward pass has " + std::to_string(seq),
                   error_code::kShapeMismatch, "meanOver"};
    const std::size_t layers = static_cast<std::size_t>(spec_.layers);
    const std::size_t head_block = static_cast<std::size_t>(spec_.heads) * seq * spec_.head_dim();
    const std::size_t mlp_block = static_cast<std::size_t>(seq) * spec_.d_model;
    bool shaped = means->heads.size() == layers && means->mlps.size() == layers;
    for (std::size_t l = 0; shaped && l < layers; ++l)
      shaped = means->heads[l].size() == head_block && means->mlps[l].size() == mlp_block;
    if (!shaped)
      return Error{"the mean ablation's means were not made for this model", error_code::kShapeMismatch, "meanOver"};
  }
  return Ok{};
}

std::vector<int> head_rows_of_layer(const std::vector<HeadRef>& heads, int layer) {
  std::vector<int> out;
  for (const HeadRef& h : heads)
    if (h.layer == layer) out.push_back(h.row);
  return out;
}

std::vector<int> mlp_rows_of_layer(const std::vector<MlpRef>& mlps, int layer) {
  std::vector<int> out;
  for (const MlpRef& m : mlps)
    if (m.layer == layer) out.push_back(m.row);
  return out;
}

std::vector<int> heads_of_layer(const std::vector<HeadRef>& heads, int layer) {
  std::vector<int> out;
  for (const HeadRef& h : heads)
    if (h.layer == layer) out.push_back(h.head);
  return out;
}

Result<ForwardOutput> Transformer::forward(const ForwardInput& in, const ForwardOptions& options) const {
  const ModelSpec& s = spec_;
  const bool enc_dec = s.encoder_decoder();
  if (Status st = check_input(in, options.record != nullptr, options.record, options.logits); !st)
    return st.error_value();
  if (Status st = check_ablation(options, in.batch, enc_dec ? in.source_seq : in.seq); !st) return st.error_value();

  ForwardOutput out;
  Trace* trace = options.record ? &out.trace : nullptr;
  LayerOptions lo = layer_options(s, options.backend);

  // The single stack (decoder-only when causal) or the encoder.
  const std::string stack = !enc_dec && s.causal ? kDecoderStack : kEncoderStack;
  const std::vector<int>& stack_ids = enc_dec ? in.source_ids : in.ids;
  const int stack_seq = enc_dec ? in.source_seq : in.seq;
  const Tensor padding =
      key_padding_mask(full_lengths(enc_dec ? in.source_lengths : in.lengths, in.batch, stack_seq), stack_seq);
  Recorder outer(trace, -1, stack + ".", options.record);
  outer.record(StageId::PaddingMask, padding);
  Result<Tensor> x = embed_input(stack_ids, in.batch, stack_seq, stack, outer, in.token_types);
  if (!x) return x.error_value();
  const bool stack_causal = !enc_dec && s.causal;
  const RopeTables ropes = rope_tables(s, stack_seq);
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    Recorder recorder(trace, static_cast<int>(l), stack + ".", options.record);
    lo.ablated_heads = heads_of_layer(options.ablated_heads, static_cast<int>(l));
    lo.ablated_rows = head_rows_of_layer(options.ablated_heads, static_cast<int>(l));
    lo.ablated_mlp_rows = mlp_rows_of_layer(options.ablated_mlps, static_cast<int>(l));
    lo.head_means = options.means ? &options.means->heads[l] : nullptr;
    lo.mlp_mean = options.means ? &options.means->mlps[l] : nullptr;
    const LayerPositions positions = layer_positions(s, static_cast<int>(l), ropes);
    lo.rope = positions.rope;
    lo.alibi = positions.alibi;
    lo.window = positions.window;
    Result<Tensor> y = encoder_layer(x.value(), layers_[l], lo, &padding, stack_causal, recorder);
    if (!y) return y.error_value();
    x = std::move(y.value());
    recorder.record(StageId::LayerOutput, x.value());
  }
  if (s.has_final_norm()) {
    x = layer_norm(x.value(), norm_);
    outer.record(StageId::FinalNorm, x.value());
  }

  if (enc_dec) {
    const Tensor& memory = x.value();
    const Tensor target_padding = key_padding_mask(full_lengths(in.lengths, in.batch, in.seq), in.seq);
    Recorder decoder_outer(trace, -1, std::string(kDecoderStack) + ".", options.record);
    decoder_outer.record(StageId::PaddingMask, target_padding);
    Result<Tensor> t = embed_input(in.ids, in.batch, in.seq, kDecoderStack, decoder_outer);
    if (!t) return t.error_value();
    for (std::size_t l = 0; l < decoder_layers_.size(); ++l) {
      Recorder recorder(trace, static_cast<int>(l), std::string(kDecoderStack) + ".", options.record);
      Result<Tensor> y =
          decoder_layer(t.value(), memory, decoder_layers_[l], lo, &target_padding, &padding, recorder, s.causal);
      if (!y) return y.error_value();
      t = std::move(y.value());
      recorder.record(StageId::LayerOutput, t.value());
    }
    if (s.has_final_norm()) {
      t = layer_norm(t.value(), decoder_norm_);
      decoder_outer.record(StageId::FinalNorm, t.value());
    }
    out.hidden = std::move(t.value());
  } else {
    out.hidden = std::move(x.value());
  }

  if (s.head != OutputHead::None && options.logits != LogitRows::None) {
    // logits = hidden W^T + b: (B, S, E) -> (B, S, V), with W = head.weight (V, E) or,
    // tied, embed.weight (V, E), packed once per version like any weight. The 'mlm'
    // heads first transforms hidden: norm(act(hidden W_d^T + b_d)), (B, S, E).
    // LogitRows::Last takes each sequence's last real row first: (B, 1, E).
    const bool last = options.logits == LogitRows::Last;
    Tensor rows;
    if (last) {
      const std::vector<int> lengths = full_lengths(in.lengths, in.batch, in.seq);
      rows = Tensor({"B", "S", "E"}, {in.batch, 1, s.d_model});
      for (int b = 0; b < in.batch; ++b) {
        const int p = std::max(lengths[static_cast<std::size_t>(b)] - 1, 0);
        std::copy_n(out.hidden.ptr() + (static_cast<std::size_t>(b) * in.seq + p) * s.d_model, s.d_model,
                    rows.ptr() + static_cast<std::size_t>(b) * s.d_model);
      }
    }
    if (Status st = head_logits(last ? rows : out.hidden, options.backend, out.logits); !st) return st.error_value();
    Recorder(trace, -1, "", options.record).record(StageId::Logits, out.logits);
  }
  return out;
}

Status Transformer::head_logits(const Tensor& picked, Backend backend, Tensor& logits) const {
  const ModelSpec& s = spec_;
  const Tensor transformed = s.mlm_head() ? mlm_transform(picked, backend) : Tensor{};
  const Tensor& features = s.mlm_head() ? transformed : picked;
  const int batch = picked.shape[0], seq = picked.shape[1];
  const Parameter& weight = s.tied_head() ? embed_ : head_.weight;
  const std::size_t count = static_cast<std::size_t>(batch) * seq * s.vocab_size;
  if (logits.data.size() == count) {  // the GEMM writes every element: no zeroing first
    logits.axes = {"B", "S", "V"};
    logits.shape = {batch, seq, s.vocab_size};
  } else {
    logits = Tensor({"B", "S", "V"}, {batch, seq, s.vocab_size});
  }
  linear_parameter_rows(features.ptr(), batch * seq, s.d_model, weight, 0,
                        head_.bias.empty() ? nullptr : head_.bias.data(), s.vocab_size, logits.ptr(), backend);
  if (!all_finite(logits.ptr(), logits.size())) return overflow_error("the logits");
  return Ok{};
}

Tensor Transformer::mlm_transform(const Tensor& hidden, Backend backend) const {
  const int e = spec_.d_model, rows = static_cast<int>(hidden.size() / e);
  Tensor t({"B", "S", "E"}, hidden.shape);
  linear_parameter_rows(hidden.ptr(), rows, e, head_dense_.weight, 0, head_dense_.bias.data(), e, t.ptr(), backend);
  for (float& v : t.data) v = activate(v, spec_.activation);
  return spec_.layer_norm ? layer_norm(t, head_norm_) : t;
}

}  // namespace attention
