// The forward pass with a tape and its backward, for the whole model. Shapes: rows =
// B * S positions of the stack at hand; E = d_model; H heads of d_k; F = ffn width.
#include <algorithm>
#include <cmath>
#include <vector>

#include "attention/attention.hpp"
#include "attention/grad_ops.hpp"
#include "attention/masks.hpp"
#include "attention/multi_head.hpp"
#include "attention/numeric.hpp"
#include "attention/train.hpp"

namespace attention {

namespace {

using Floats = std::vector<float>;

Floats zeros(std::size_t n) { return Floats(n, 0.0f); }

void add_into(Floats& to, const Floats& from) {
  for (std::size_t i = 0; i < to.size(); ++i) to[i] += from[i];
}

float* grad_of(Parameter& p) {
  if (p.grad.size() != p.size()) p.grad.assign(p.size(), 0.0f);
  return p.grad.data();
}

// A sequence of one stack: its positions, and who may attend to whom.
struct StackShape {
  int batch = 0, seq = 0;
  Tensor padding;  // (B, S), 1 = padding
  int rows() const { return batch * seq; }
};

struct NormTape {
  Floats xhat, inv_std;
};

Floats norm_forward(const Floats& x, int rows, int e, const LayerNormWeights& n, NormTape& tape) {
  Floats y(x.size());
  tape.xhat.resize(x.size());
  tape.inv_std.resize(static_cast<std::size_t>(rows));
  grad::layer_norm_forward(x.data(), rows, e, n.weight.data(), n.bias.data(), n.eps, y.data(), tape.xhat.data(),
                           tape.inv_std.data());
  return y;
}

Floats norm_backward(const Floats& dy, int rows, int e, LayerNormWeights& n, const NormTape& tape) {
  Floats dx = zeros(dy.size());
  grad::layer_norm_backward(dy.data(), tape.xhat.data(), tape.inv_std.data(), rows, e, n.weight.data(), dx.data(),
                            grad_of(n.weight), grad_of(n.bias));
  return dx;
}

// y = x W[rows r0 .. r0+out)^T + b[r0 ..]: a slice of a weight (in_proj's Q, K or V rows).
Floats linear_slice(const Floats& x, int rows, int in, const Parameter& w, const Parameter& b, int r0, int out,
                    Backend backend) {
  Floats y(static_cast<std::size_t>(rows) * out);
  linear_rows(x.data(), rows, in, w.data() + static_cast<std::size_t>(r0) * in, b.empty() ? nullptr : b.data() + r0, out,
              y.data(), backend);
  return y;
}

void linear_slice_backward(const Floats& x, const Floats& dy, int rows, int in, Parameter& w, Parameter& b, int r0,
                           int out, Floats* dx, Backend backend) {
  grad::linear_backward(x.data(), dy.data(), rows, in, out, w.data() + static_cast<std::size_t>(r0) * in,
                        dx ? dx->data() : nullptr, grad_of(w) + static_cast<std::size_t>(r0) * in,
                        b.empty() ? nullptr : grad_of(b) + r0, backend);
}

Tensor as_heads(Floats x, int batch, int seq, int heads) {  // (B, S, E) -> (B, H, S, d_k)
  const int e = static_cast<int>(x.size() / (static_cast<std::size_t>(batch) * seq));
  return split_heads(Tensor({"B", "S", "E"}, {batch, seq, e}, std::move(x)), heads);
}
Floats from_heads(const Floats& x, int batch, int heads, int seq) {  // (B, H, S, d_k) -> (B, S, E)
  const int dk = static_cast<int>(x.size() / (static_cast<std::size_t>(batch) * heads * seq));
  return merge_heads(Tensor({"B", "H", "S", "d_k"}, {batch, heads, seq, dk}, x)).data;
}

struct AttentionTape {
  Floats xq, xkv;  // inputs: queries (B*Sq, E), keys/values (B*Sk, E); xkv empty = self-attention
  Tensor q, k, v;  // (B, H, S, d_k)
  Floats p;        // (B, H, Sq, Sk)
  Floats merged;   // (B*Sq, E)
  Floats projected;  // (B*Sq, E) out_proj's output, before attnActivation; empty without one
};

struct AttentionCall {
  const StackShape* queries;
  const StackShape* keys;
  bool causal;
};

Floats attention_forward(const Floats& xq, const Floats* xkv, const MultiHeadWeights& w, const AttentionCall& call,
                         const ModelSpec& s, Backend backend, AttentionTape& t) {
  const int e = s.d_model, h = s.heads, b = call.queries->batch;
  const int sq = call.queries->seq, sk = call.keys->seq;
  t.xq = xq;
  if (xkv) t.xkv = *xkv;
  const Floats& kv = xkv ? *xkv : xq;
  t.q = as_heads(linear_slice(xq, b * sq, e, w.in_proj_weight, w.in_proj_bias, 0, e, backend), b, sq, h);
  t.k = as_heads(linear_slice(kv, b * sk, e, w.in_proj_weight, w.in_proj_bias, e, e, backend), b, sk, h);
  t.v = as_heads(linear_slice(kv, b * sk, e, w.in_proj_weight, w.in_proj_bias, 2 * e, e, backend), b, sk, h);
  Tensor causal;
  if (call.causal) causal = causal_mask(sq, sk);
  const Tensor blocked = combine_masks(b, sq, sk, &call.keys->padding, call.causal ? &causal : nullptr).value();
  // The inference path's attention (attention.cpp), keeping the weights for the backward.
  AttentionStages st = scaled_dot_product_attention(t.q, t.k, t.v, &blocked, s.scale, backend, /*keep_stages=*/false);
  t.p = std::move(st.weights.data);
  t.merged = from_heads(st.output.data, b, h, sq);
  Floats out = linear_slice(t.merged, b * sq, e, w.out_proj_weight, w.out_proj_bias, 0, e, backend);
  if (s.attn_activation == Activation::None) return out;
  t.projected = out;
  for (float& v : out) v = activate(v, s.attn_activation);  // as the inference path (layers.cpp)
  return out;
}

// -> d(queries input); d(keys/values input) is added to *dxkv for cross-attention.
Floats attention_backward(const Floats& dout, MultiHeadWeights& w, const AttentionCall& call, const ModelSpec& s,
                          Backend backend, const AttentionTape& t, Floats* dxkv) {
  const int e = s.d_model, h = s.heads, dk = s.head_dim(), b = call.queries->batch;
  const int sq = call.queries->seq, sk = call.keys->seq;
  Floats dprojected;  // through attnActivation: d out_proj's output (B*Sq, E)
  if (s.attn_activation != Activation::None) {
    dprojected = zeros(dout.size());
    grad::activation_backward(t.projected.data(), dout.data(), dout.size(), s.attn_activation, dprojected.data());
  }
  const Floats& dproj = s.attn_activation == Activation::None ? dout : dprojected;
  Floats dmerged = zeros(t.merged.size());
  linear_slice_backward(t.merged, dproj, b * sq, e, w.out_proj_weight, w.out_proj_bias, 0, e, &dmerged, backend);
  const Tensor dctx = as_heads(std::move(dmerged), b, sq, h);
  Floats dq = zeros(t.q.size()), dkh = zeros(t.k.size()), dv = zeros(t.v.size());
  const float scale = s.scale ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;
  grad::attention_backward(t.q.ptr(), t.k.ptr(), t.v.ptr(), t.p.data(), dctx.ptr(), b, h, sq, sk, dk, scale,
                           dq.data(), dkh.data(), dv.data(), backend);
  Floats dxq = zeros(t.xq.size());
  const bool self = t.xkv.empty();
  Floats& dkv = self ? dxq : *dxkv;
  const Floats& kv = self ? t.xq : t.xkv;
  linear_slice_backward(t.xq, from_heads(dq, b, h, sq), b * sq, e, w.in_proj_weight, w.in_proj_bias, 0, e, &dxq, backend);
  linear_slice_backward(kv, from_heads(dkh, b, h, sk), b * sk, e, w.in_proj_weight, w.in_proj_bias, e, e, &dkv, backend);
  // The key bias adds q . b_k to every score of a query's row alike, and softmax ignores
  // a constant per row: its gradient is exactly 0. Computed, it is rounding noise, which
  // Adam (dividing by sqrt(v) + eps) would turn into steps of up to lr; so it is 0.
  if (!w.in_proj_bias.empty()) std::fill_n(grad_of(w.in_proj_bias) + e, e, 0.0f);
  linear_slice_backward(kv, from_heads(dv, b, h, sk), b * sk, e, w.in_proj_weight, w.in_proj_bias, 2 * e, e, &dkv, backend);
  return dxq;
}

struct FfnTape {
  Floats x, pre, act;
};

Floats ffn_forward(const Floats& x, int rows, const FeedForwardWeights& w, const ModelSpec& s, Backend backend, FfnTape& t) {
  const int e = s.d_model, f = s.ffn_dim;
  t.x = x;
  t.pre = linear_slice(x, rows, e, w.linear1.weight, w.linear1.bias, 0, f, backend);
  t.act.resize(t.pre.size());
  // ReLU inline (a call per element to activate() cost more than the max itself); the
  // same values as activate(), which the other activations call.
  if (s.activation == Activation::ReLU)
    for (std::size_t i = 0; i < t.pre.size(); ++i) t.act[i] = t.pre[i] > 0.0f ? t.pre[i] : 0.0f;
  else
    for (std::size_t i = 0; i < t.pre.size(); ++i) t.act[i] = activate(t.pre[i], s.activation);
  return linear_slice(t.act, rows, f, w.linear2.weight, w.linear2.bias, 0, e, backend);
}

Floats ffn_backward(const Floats& dout, int rows, FeedForwardWeights& w, const ModelSpec& s, Backend backend, const FfnTape& t) {
  const int e = s.d_model, f = s.ffn_dim;
  Floats dact = zeros(t.act.size());
  linear_slice_backward(t.act, dout, rows, f, w.linear2.weight, w.linear2.bias, 0, e, &dact, backend);
  Floats dpre = zeros(t.pre.size());
  grad::activation_backward(t.pre.data(), dact.data(), dpre.size(), s.activation, dpre.data());
  Floats dx = zeros(t.x.size());
  linear_slice_backward(t.x, dpre, rows, e, w.linear1.weight, w.linear1.bias, 0, f, &dx, backend);
  return dx;
}

// One residual sub-layer in either norm placement:
//   post: y = norm(x + f(x))     pre: y = x + f(norm(x))     (residual off: drop the "x +")
struct SublayerTape {
  NormTape norm;
  AttentionTape attention;
  FfnTape ffn;
};

template <class Forward>
Floats sublayer_forward(const Floats& x, int rows, const LayerNormWeights& n, const ModelSpec& s, SublayerTape& t,
                        Forward&& f) {
  if (s.norm == NormPlacement::Pre) {
    Floats out = f(norm_forward(x, rows, s.d_model, n, t.norm));
    if (s.residual) add_into(out, x);
    return out;
  }
  Floats sum = f(x);
  if (s.residual) add_into(sum, x);
  return norm_forward(sum, rows, s.d_model, n, t.norm);
}

template <class Backward>
Floats sublayer_backward(const Floats& dy, int rows, LayerNormWeights& n, const ModelSpec& s, const SublayerTape& t,
                         Backward&& f_back) {
  if (s.norm == NormPlacement::Pre) {
    Floats dx = norm_backward(f_back(dy), rows, s.d_model, n, t.norm);
    if (s.residual) add_into(dx, dy);
    return dx;
  }
  const Floats dsum = norm_backward(dy, rows, s.d_model, n, t.norm);
  Floats dx = f_back(dsum);
  if (s.residual) add_into(dx, dsum);
  return dx;
}

struct LayerTape {
  SublayerTape sub[3];
};

struct Tape {
  std::vector<LayerTape> encoder, decoder;
  NormTape encoder_norm, decoder_norm;
  Floats hidden;  // (B*S, E) before the head
  Floats logits;  // (B*S, V)
};

void embed_backward(Transformer& m, const std::vector<int>& ids, int batch, int seq, const Floats& dx) {
  const int e = m.spec().d_model;
  float* dembed = grad_of(m.embed());
  for (std::size_t r = 0; r < ids.size(); ++r)
    for (int i = 0; i < e; ++i) dembed[static_cast<std::size_t>(ids[r]) * e + i] += dx[r * e + i];
  if (m.spec().positions != Positions::Learned) return;
  float* dpos = grad_of(m.positions());
  for (int b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < static_cast<std::size_t>(seq) * e; ++i) dpos[i] += dx[b * static_cast<std::size_t>(seq) * e + i];
}

StackShape shape_of(int batch, int seq, const std::vector<int>& lengths) {
  StackShape shape;
  shape.batch = batch;
  shape.seq = seq;
  shape.padding = key_padding_mask(lengths.empty() ? std::vector<int>(static_cast<std::size_t>(batch), seq) : lengths, seq);
  return shape;
}

// The whole forward with its tape: the encoder (or single stack), then the decoder, the head.
Status forward_with_tape(Transformer& m, const ForwardInput& in, Backend backend, Tape& tape) {
  const ModelSpec& s = m.spec();
  const bool enc_dec = s.encoder_decoder();
  const StackShape stack = enc_dec ? shape_of(in.batch, in.source_seq, in.source_lengths) : shape_of(in.batch, in.seq, in.lengths);
  Result<Tensor> input = m.embed_input(enc_dec ? in.source_ids : in.ids, stack.batch, stack.seq, "encoder");
  if (!input) return input.error_value();
  Floats x = std::move(input.value().data);
  tape.encoder.resize(m.encoder_layers().size());
  const AttentionCall self_call{&stack, &stack, !enc_dec && s.causal};
  for (std::size_t l = 0; l < m.encoder_layers().size(); ++l) {
    EncoderLayerWeights& w = m.encoder_layers()[l];
    LayerTape& t = tape.encoder[l];
    x = sublayer_forward(x, stack.rows(), w.norm1, s, t.sub[0], [&](const Floats& a) {
      return attention_forward(a, nullptr, w.self_attn, self_call, s, backend, t.sub[0].attention);
    });
    x = sublayer_forward(x, stack.rows(), w.norm2, s, t.sub[1], [&](const Floats& a) {
      return ffn_forward(a, stack.rows(), w.ffn, s, backend, t.sub[1].ffn);
    });
  }
  if (s.final_norm) x = norm_forward(x, stack.rows(), s.d_model, m.final_norm(), tape.encoder_norm);
  if (enc_dec) {
    const Floats memory = std::move(x);
    const StackShape target = shape_of(in.batch, in.seq, in.lengths);
    Result<Tensor> target_input = m.embed_input(in.ids, target.batch, target.seq, "decoder");
    if (!target_input) return target_input.error_value();
    x = std::move(target_input.value().data);
    tape.decoder.resize(m.decoder_layers().size());
    const AttentionCall self{&target, &target, s.causal}, cross{&target, &stack, false};
    for (std::size_t l = 0; l < m.decoder_layers().size(); ++l) {
      DecoderLayerWeights& w = m.decoder_layers()[l];
      LayerTape& t = tape.decoder[l];
      x = sublayer_forward(x, target.rows(), w.norm1, s, t.sub[0], [&](const Floats& a) {
        return attention_forward(a, nullptr, w.self_attn, self, s, backend, t.sub[0].attention);
      });
      x = sublayer_forward(x, target.rows(), w.norm2, s, t.sub[1], [&](const Floats& a) {
        return attention_forward(a, &memory, w.cross_attn, cross, s, backend, t.sub[1].attention);
      });
      x = sublayer_forward(x, target.rows(), w.norm3, s, t.sub[2], [&](const Floats& a) {
        return ffn_forward(a, target.rows(), w.ffn, s, backend, t.sub[2].ffn);
      });
    }
    if (s.final_norm) x = norm_forward(x, target.rows(), s.d_model, m.decoder_final_norm(), tape.decoder_norm);
  }
  tape.hidden = std::move(x);
  const Parameter& head_weight = s.head == OutputHead::Tied ? m.embed() : m.head().weight;
  tape.logits = linear_slice(tape.hidden, in.batch * in.seq, s.d_model, head_weight, m.head().bias, 0, s.vocab_size, backend);
  return Ok{};
}

void backward(Transformer& m, const ForwardInput& in, Backend backend, const Tape& tape, const Floats& dlogits) {
  const ModelSpec& s = m.spec();
  const bool enc_dec = s.encoder_decoder();
  Parameter& head_weight = s.head == OutputHead::Tied ? m.embed() : m.head().weight;
  Floats dx = zeros(tape.hidden.size());
  linear_slice_backward(tape.hidden, dlogits, in.batch * in.seq, s.d_model, head_weight, m.head().bias, 0, s.vocab_size,
                        &dx, backend);
  const StackShape stack = enc_dec ? shape_of(in.batch, in.source_seq, in.source_lengths) : shape_of(in.batch, in.seq, in.lengths);
  if (enc_dec) {
    const StackShape target = shape_of(in.batch, in.seq, in.lengths);
    if (s.final_norm) dx = norm_backward(dx, target.rows(), s.d_model, m.decoder_final_norm(), tape.decoder_norm);
    Floats dmemory = zeros(static_cast<std::size_t>(stack.rows()) * s.d_model);
    const AttentionCall self{&target, &target, s.causal}, cross{&target, &stack, false};
    for (std::size_t l = m.decoder_layers().size(); l-- > 0;) {
      DecoderLayerWeights& w = m.decoder_layers()[l];
      const LayerTape& t = tape.decoder[l];
      dx = sublayer_backward(dx, target.rows(), w.norm3, s, t.sub[2], [&](const Floats& d) {
        return ffn_backward(d, target.rows(), w.ffn, s, backend, t.sub[2].ffn);
      });
      dx = sublayer_backward(dx, target.rows(), w.norm2, s, t.sub[1], [&](const Floats& d) {
        return attention_backward(d, w.cross_attn, cross, s, backend, t.sub[1].attention, &dmemory);
      });
      dx = sublayer_backward(dx, target.rows(), w.norm1, s, t.sub[0], [&](const Floats& d) {
        return attention_backward(d, w.self_attn, self, s, backend, t.sub[0].attention, nullptr);
      });
    }
    embed_backward(m, in.ids, target.batch, target.seq, dx);
    dx = std::move(dmemory);
  }
  if (s.final_norm) dx = norm_backward(dx, stack.rows(), s.d_model, m.final_norm(), tape.encoder_norm);
  const AttentionCall self_call{&stack, &stack, !enc_dec && s.causal};
  for (std::size_t l = m.encoder_layers().size(); l-- > 0;) {
    EncoderLayerWeights& w = m.encoder_layers()[l];
    const LayerTape& t = tape.encoder[l];
    dx = sublayer_backward(dx, stack.rows(), w.norm2, s, t.sub[1], [&](const Floats& d) {
      return ffn_backward(d, stack.rows(), w.ffn, s, backend, t.sub[1].ffn);
    });
    dx = sublayer_backward(dx, stack.rows(), w.norm1, s, t.sub[0], [&](const Floats& d) {
      return attention_backward(d, w.self_attn, self_call, s, backend, t.sub[0].attention, nullptr);
    });
  }
  embed_backward(m, enc_dec ? in.source_ids : in.ids, stack.batch, stack.seq, dx);
}

// Argmax accuracy per counted target and per sequence (every counted target right).
void count_correct(const Floats& logits, const std::vector<int>& targets, int batch, int seq, int vocab, LossResult& r) {
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
  if (s.head == OutputHead::None)
    return Error{"training needs a model with an output head (head 'linear' or 'tied')", error_code::kInvalidArgument, "head"};
  const ForwardInput& in = batch.input;
  if (batch.targets.size() != static_cast<std::size_t>(in.batch) * in.seq)
    return Error{"targets has " + std::to_string(batch.targets.size()) + " entries, expected (B, S) = " +
                     std::to_string(static_cast<long long>(in.batch) * in.seq),
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

Result<LossResult> run(Transformer& m, const TrainingBatch& batch, Backend backend, bool gradients) {
  if (Status st = check_batch(m, batch); !st) return st.error_value();
  // The same checks as the inference forward (ids, lengths, memory), counting the tape.
  if (Status st = m.check_input(batch.input, /*recording=*/true); !st) return st.error_value();
  const ModelSpec& s = m.spec();
  Tape tape;
  if (Status st = forward_with_tape(m, batch.input, backend, tape); !st) return st.error_value();
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

Result<LossResult> loss_only(const Transformer& model, const TrainingBatch& batch, Backend backend) {
  // The tape's forward reads the parameters only; no gradient is written without `gradients`.
  return run(const_cast<Transformer&>(model), batch, backend, false);
}

}  // namespace attention
