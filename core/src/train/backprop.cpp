// The forward pass with a tape and its backward, for the whole model: embeddings, the
// stacks' layers (their sub-layers: layer_backprop.hpp), final norms, the head and
// the loss. Shapes: rows = B * S positions of the stack at hand; E = d_model.
#include <algorithm>
#include <cmath>
#include <vector>

#include "attention/grad_ops.hpp"
#include "attention/masks.hpp"
#include "attention/numeric.hpp"
#include "attention/train.hpp"
#include "src/train/layer_backprop.hpp"

namespace attention {

namespace {

using namespace train;

struct LayerTape {
  SublayerTape sub[3];
};

struct Tape {
  RopeTables ropes;  // the single stack's RoPE tables (the modern block)
  std::vector<LayerTape> encoder, decoder;
  NormTape encoder_norm, decoder_norm;
  Floats hidden;  // (B*S, E) before the head
  Floats logits;  // (B*S, V)
};

void embed_backward(Transformer& m, const std::vector<int>& ids, int batch, int seq, const Floats& dx) {
  const int e = m.spec().d_model;
  float* dembed = grad_of(m.embed());
  // embedScale: h = embed[ids] * sqrt(E), as embed_input's float32 factor
  const float factor = m.spec().embed_scale ? static_cast<float>(std::sqrt(static_cast<double>(e))) : 1.0f;
  for (std::size_t r = 0; r < ids.size(); ++r)
    for (int i = 0; i < e; ++i) dembed[static_cast<std::size_t>(ids[r]) * e + i] += dx[r * e + i] * factor;
  if (m.spec().positions != Positions::Learned) return;
  float* dpos = grad_of(m.positions());
  for (int b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < static_cast<std::size_t>(seq) * e; ++i)
      dpos[i] += dx[b * static_cast<std::size_t>(seq) * e + i];
}

// The self-attention of layer l of the single stack (or the encoder): causal for a
// decoder-only stack, with the layer's RoPE table, ALiBi and window.
AttentionCall self_attention_call(const ModelSpec& s, const StackShape& stack, int layer, const RopeTables& ropes) {
  AttentionCall call{&stack, &stack, !s.encoder_decoder() && s.causal};
  const LayerPositions positions = layer_positions(s, layer, ropes);
  call.rope = positions.rope;
  call.alibi = positions.alibi;
  call.window = positions.window;
  return call;
}

StackShape shape_of(int batch, int seq, const std::vector<int>& lengths) {
  StackShape shape;
  shape.batch = batch;
  shape.seq = seq;
  shape.padding =
      key_padding_mask(lengths.empty() ? std::vector<int>(static_cast<std::size_t>(batch), seq) : lengths, seq);
  return shape;
}

// The whole forward with its tape: the encoder (or single stack), then the decoder, the head.
Status forward_with_tape(Transformer& m, const ForwardInput& in, Backend backend, Tape& tape,
                         const std::vector<HeadRef>& ablated_heads) {
  const ModelSpec& s = m.spec();
  const bool enc_dec = s.encoder_decoder();
  const StackShape stack =
      enc_dec ? shape_of(in.batch, in.source_seq, in.source_lengths) : shape_of(in.batch, in.seq, in.lengths);
  Result<Tensor> input = m.embed_input(enc_dec ? in.source_ids : in.ids, stack.batch, stack.seq, kEncoderStack);
  if (!input) return input.error_value();
  Floats x = std::move(input.value().data);
  tape.encoder.resize(m.encoder_layers().size());
  tape.ropes = rope_tables(s, stack.seq);
  for (std::size_t l = 0; l < m.encoder_layers().size(); ++l) {
    EncoderLayerWeights& w = m.encoder_layers()[l];
    LayerTape& t = tape.encoder[l];
    AttentionCall layer_call = self_attention_call(s, stack, static_cast<int>(l), tape.ropes);
    layer_call.ablated_heads = heads_of_layer(ablated_heads, static_cast<int>(l));
    x = sublayer_forward(x, stack.rows(), w.norm1, w.post_norm1, s, t.sub[0], [&](const Floats& a) {
      return attention_forward(a, nullptr, w.self_attn, layer_call, s, backend, t.sub[0].attention);
    });
    x = sublayer_forward(x, stack.rows(), w.norm2, w.post_norm2, s, t.sub[1], [&](const Floats& a) {
      return ffn_forward(a, stack.rows(), w.ffn, s, backend, t.sub[1].ffn);
    });
  }
  if (s.has_final_norm()) x = norm_forward(x, stack.rows(), s.d_model, m.final_norm(), tape.encoder_norm);
  if (enc_dec) {
    const Floats memory = std::move(x);
    const StackShape target = shape_of(in.batch, in.seq, in.lengths);
    Result<Tensor> target_input = m.embed_input(in.ids, target.batch, target.seq, kDecoderStack);
    if (!target_input) return target_input.error_value();
    x = std::move(target_input.value().data);
    tape.decoder.resize(m.decoder_layers().size());
    const AttentionCall self{&target, &target, s.causal}, cross{&target, &stack, false};
    for (std::size_t l = 0; l < m.decoder_layers().size(); ++l) {
      DecoderLayerWeights& w = m.decoder_layers()[l];
      LayerTape& t = tape.decoder[l];
      x = sublayer_forward(x, target.rows(), w.norm1, w.post_norm1, s, t.sub[0], [&](const Floats& a) {
        return attention_forward(a, nullptr, w.self_attn, self, s, backend, t.sub[0].attention);
      });
      x = sublayer_forward(x, target.rows(), w.norm2, w.post_norm2, s, t.sub[1], [&](const Floats& a) {
        return attention_forward(a, &memory, w.cross_attn, cross, s, backend, t.sub[1].attention);
      });
      x = sublayer_forward(x, target.rows(), w.norm3, w.post_norm3, s, t.sub[2], [&](const Floats& a) {
        return ffn_forward(a, target.rows(), w.ffn, s, backend, t.sub[2].ffn);
      });
    }
    if (s.has_final_norm()) x = norm_forward(x, target.rows(), s.d_model, m.decoder_final_norm(), tape.decoder_norm);
  }
  tape.hidden = std::move(x);
  const Parameter& head_weight = s.head == OutputHead::Tied ? m.embed() : m.head().weight;
  tape.logits =
      linear_slice(tape.hidden, in.batch * in.seq, s.d_model, head_weight, m.head().bias, 0, s.vocab_size, backend);
  return Ok{};
}

void backward(Transformer& m, const ForwardInput& in, Backend backend, const Tape& tape, const Floats& dlogits) {
  const ModelSpec& s = m.spec();
  const bool enc_dec = s.encoder_decoder();
  Parameter& head_weight = s.head == OutputHead::Tied ? m.embed() : m.head().weight;
  Floats dx = zeros(tape.hidden.size());
  linear_slice_backward(tape.hidden, dlogits, in.batch * in.seq, s.d_model, head_weight, m.head().bias, 0, s.vocab_size,
                        &dx, backend);
  const StackShape stack =
      enc_dec ? shape_of(in.batch, in.source_seq, in.source_lengths) : shape_of(in.batch, in.seq, in.lengths);
  if (enc_dec) {
    const StackShape target = shape_of(in.batch, in.seq, in.lengths);
    if (s.has_final_norm()) dx = norm_backward(dx, target.rows(), s.d_model, m.decoder_final_norm(), tape.decoder_norm);
    Floats dmemory = zeros(static_cast<std::size_t>(stack.rows()) * s.d_model);
    const AttentionCall self{&target, &target, s.causal}, cross{&target, &stack, false};
    for (std::size_t l = m.decoder_layers().size(); l-- > 0;) {
      DecoderLayerWeights& w = m.decoder_layers()[l];
      const LayerTape& t = tape.decoder[l];
      dx = sublayer_backward(dx, target.rows(), w.norm3, w.post_norm3, s, t.sub[2], [&](const Floats& d) {
        return ffn_backward(d, target.rows(), w.ffn, s, backend, t.sub[2].ffn);
      });
      dx = sublayer_backward(dx, target.rows(), w.norm2, w.post_norm2, s, t.sub[1], [&](const Floats& d) {
        return attention_backward(d, w.cross_attn, cross, s, backend, t.sub[1].attention, &dmemory);
      });
      dx = sublayer_backward(dx, target.rows(), w.norm1, w.post_norm1, s, t.sub[0], [&](const Floats& d) {
        return attention_backward(d, w.self_attn, self, s, backend, t.sub[0].attention, nullptr);
      });
    }
    embed_backward(m, in.ids, target.batch, target.seq, dx);
    dx = std::move(dmemory);
  }
  if (s.has_final_norm()) dx = norm_backward(dx, stack.rows(), s.d_model, m.final_norm(), tape.encoder_norm);
  for (std::size_t l = m.encoder_layers().size(); l-- > 0;) {
    EncoderLayerWeights& w = m.encoder_layers()[l];
    const LayerTape& t = tape.encoder[l];
    const AttentionCall self_call = self_attention_call(s, stack, static_cast<int>(l), tape.ropes);
    dx = sublayer_backward(dx, stack.rows(), w.norm2, w.post_norm2, s, t.sub[1], [&](const Floats& d) {
      return ffn_backward(d, stack.rows(), w.ffn, s, backend, t.sub[1].ffn);
    });
    dx = sublayer_backward(dx, stack.rows(), w.norm1, w.post_norm1, s, t.sub[0], [&](const Floats& d) {
      return attention_backward(d, w.self_attn, self_call, s, backend, t.sub[0].attention, nullptr);
    });
  }
  embed_backward(m, enc_dec ? in.source_ids : in.ids, stack.batch, stack.seq, dx);
}

// Argmax accuracy per counted target and per sequence (every counted target right).
void count_correct(const Floats& logits, const std::vector<int>& targets, int batch, int seq, int vocab,
                   LossResult& r) {
  for (int b = 0; b < batch; ++b) {
    int counted = 0, correct = 0;
    for (int s = 0; s < seq; ++s) {
      const std::size_t row = static_cast<std::size_t>(b) * seq + s;
      if (targets[row] == grad::kIgnoreIndex) continue;
      const float* z = logits.data() + row * vocab;
      ++counted;
      correct += static_cast<int>(std::max_element(z, z + vocab) - z) == targets[row];
    }
    r.correct += correct;
    r.sequences += counted > 0;
    r.correct_sequences += counted > 0 && correct == counted;
  }
}

Status check_batch(const Transformer& m, const TrainingBatch& batch) {
  const ModelSpec& s = m.spec();
  if (s.head != OutputHead::Linear && s.head != OutputHead::Tied)  // the backward knows these two heads only
    return Error{"training needs a model with an output head 'linear' or 'tied'", error_code::kInvalidArgument, "head"};
  const ForwardInput& in = batch.input;
  if (batch.targets.size() != static_cast<std::size_t>(in.batch) * in.seq)
    return Error{"targets has " + std::to_string(batch.targets.size()) +
                     " entries, expected (B, S) = " + std::to_string(static_cast<long long>(in.batch) * in.seq),
                 error_code::kShapeMismatch, "targets"};
  for (std::size_t i = 0; i < batch.targets.size(); ++i) {
    const int t = batch.targets[i];
    if (t != grad::kIgnoreIndex && (t < 0 || t >= s.vocab_size))
      return Error{"targets[" + std::to_string(i) + "] is " + std::to_string(t) + ", outside the vocabulary 0.." +
                       std::to_string(s.vocab_size - 1) + " (or -100 to ignore the position)",
                   error_code::kOutOfRange, "targets"};
  }
  return Ok{};
}

// With gradients, never with ablated heads (the backward does not zero their gradients).
Result<LossResult> run(Transformer& m, const TrainingBatch& batch, Backend backend, bool gradients,
                       const std::vector<HeadRef>& ablated_heads = {}) {
  if (Status st = check_batch(m, batch); !st) return st.error_value();
  if (Status st = m.check_ablated_heads(ablated_heads); !st) return st.error_value();
  // The same checks as the inference forward (ids, lengths, memory), counting the tape.
  if (Status st = m.check_input(batch.input, /*recording=*/true); !st) return st.error_value();
  const ModelSpec& s = m.spec();
  Tape tape;
  if (Status st = forward_with_tape(m, batch.input, backend, tape, ablated_heads); !st) return st.error_value();
  Floats dlogits(tape.logits.size());
  LossResult result;
  result.loss = grad::cross_entropy(tape.logits.data(), batch.targets.data(), batch.input.batch * batch.input.seq,
                                    s.vocab_size, dlogits.data(), &result.counted);
  count_correct(tape.logits, batch.targets, batch.input.batch, batch.input.seq, s.vocab_size, result);
  if (!gradients) return result;
  m.visit_parameters([](Parameter& p) { p.grad.assign(p.size(), 0.0f); });
  backward(m, batch.input, backend, tape, dlogits);
  return result;
}

}  // namespace

Result<LossResult> loss_and_gradients(Transformer& model, const TrainingBatch& batch, Backend backend) {
  return run(model, batch, backend, true);
}

Result<LossResult> loss_only(const Transformer& model, const TrainingBatch& batch, Backend backend,
                             const std::vector<HeadRef>& ablated_heads) {
  // The tape's forward reads the parameters only; no gradient is written without `gradients`.
  return run(const_cast<Transformer&>(model), batch, backend, false, ablated_heads);
}

}  // namespace attention
