#include "attention/model.hpp"

#include "attention/embeddings.hpp"
#include "attention/masks.hpp"
#include "attention/presets.hpp"
#include "attention/tokenizer.hpp"

namespace attention {

namespace {

LayerOptions layer_options(const ModelConfig& c) {
  LayerOptions o;
  o.heads = c.heads;
  o.scale = c.scale;
  o.residual = c.residual;
  o.activation = c.activation;
  o.norm = c.norm;
  o.backend = c.backend;
  return o;
}

// embeddings (+ positions) for one stack, recorded under "<stack>.".
Tensor stack_input(const TokenBatch& batch, const ModelConfig& c, const Recorder& recorder) {
  const EmbeddingLayout layout = embedding_layout(c);
  Tensor x = embed_tokens(batch, c.seed, c.d_model, layout);
  recorder.record("embeddings", x);
  if (c.positional) {
    const Tensor pe = positions_for(batch.padded_length, c.d_model, layout);
    recorder.record("positions", pe);
    const std::size_t row = static_cast<std::size_t>(batch.padded_length) * c.d_model;
    for (std::size_t b = 0; b < batch.tokens.size(); ++b)
      for (std::size_t i = 0; i < row; ++i) x.data[b * row + i] += pe.data[i];
  }
  recorder.record("input", x);
  return x;
}

}  // namespace

Model::Model(const ModelConfig& config) : config_(config), valid_(validate(config)) {
  if (!valid_) return;
  weights_ = make_weights(config_);
  // Pack every weight once for the fast GEMM; each run() reuses the panels.
  for (EncoderLayerWeights& layer : weights_.encoder) {
    prepare(layer.self_attn);
    prepare(layer.ffn.linear1);
    prepare(layer.ffn.linear2);
  }
  for (DecoderLayerWeights& layer : weights_.decoder) {
    prepare(layer.self_attn);
    prepare(layer.cross_attn);
    prepare(layer.ffn.linear1);
    prepare(layer.ffn.linear2);
  }
}

Result<Trace> run_model(const ModelConfig& config, const std::vector<std::string>& texts,
                        const std::vector<std::string>& source_texts) {
  return Model(config).run(texts, source_texts);
}

Result<Trace> Model::run(const std::vector<std::string>& texts, const std::vector<std::string>& source_texts) const {
  const ModelConfig& c = config_;
  if (!valid_) return Error{valid_.error()};
  Result<TokenBatch> target = tokenize_batch(texts);
  if (!target) return Error{target.error()};
  const bool cross = c.mode == Mode::Cross;
  TokenBatch source;
  if (cross) {
    if (source_texts.size() != texts.size())
      return Error{"cross mode needs one source text per target text: got " + std::to_string(source_texts.size()) +
                   " source and " + std::to_string(texts.size()) + " target texts"};
    Result<TokenBatch> s = tokenize_batch(source_texts);
    if (!s) return Error{"source " + s.error()};
    source = std::move(s.value());
  }
  const int batch = static_cast<int>(texts.size());
  const std::size_t floats = estimate_trace_floats(c, batch, target.value().padded_length, source.padded_length);
  if (floats > kMaxTraceFloats)
    return Error{"this configuration would need a trace of about " + std::to_string(floats * 4 >> 20) +
                 " MiB; the limit is " + std::to_string(kMaxTraceFloats * 4 >> 20) +
                 " MiB: use fewer layers, a smaller d_model or shorter text"};

  const ModelWeights& weights = weights_;
  const LayerOptions options = layer_options(c);
  Trace trace;
  trace.tokens = target.value().tokens;

  // The self-attention stack: the encoder (also the source side of cross mode) or,
  // in decoder mode, a causal decoder-only stack.
  const TokenBatch& stack_tokens = cross ? source : target.value();
  const std::string stack = c.mode == Mode::Decoder ? "decoder" : "encoder";
  const Tensor padding = key_padding_mask(stack_tokens.lengths, stack_tokens.padded_length);
  Recorder outer(&trace, -1, stack + ".");
  outer.record("padding_mask", padding);
  Tensor x = stack_input(stack_tokens, c, outer);
  for (int l = 0; l < c.layers; ++l) {
    Recorder recorder(&trace, l, stack + ".");
    Result<Tensor> y = encoder_layer(x, weights.encoder[l], options, &padding, c.mode == Mode::Decoder, recorder);
    if (!y) return Error{y.error()};
    x = std::move(y.value());
    recorder.record("output", x);
  }
  if (!cross) return trace;

  trace.source_tokens = source.tokens;
  const Tensor& memory = x;
  const Tensor target_padding = key_padding_mask(target.value().lengths, target.value().padded_length);
  Recorder decoder_outer(&trace, -1, "decoder.");
  decoder_outer.record("padding_mask", target_padding);
  Tensor t = stack_input(target.value(), c, decoder_outer);
  for (int l = 0; l < c.layers; ++l) {
    Recorder recorder(&trace, l, "decoder.");
    Result<Tensor> y = decoder_layer(t, memory, weights.decoder[l], options, &target_padding, &padding, recorder);
    if (!y) return Error{y.error()};
    t = std::move(y.value());
    recorder.record("output", t);
  }
  return trace;
}

}  // namespace attention
