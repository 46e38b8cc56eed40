#include "attention/spec.hpp"

namespace attention {

const Schema<ModelSpec>& model_spec_schema() {
  using S = ModelSpec;
  static const Schema<ModelSpec> schema{
      {
          int_field("vocabSize", &S::vocab_size, 1, 262144, "Entries of the embedding table (V)."),
          int_field("dModel", &S::d_model, 1, 4096, "Width of every token vector, the residual stream (E)."),
          int_field("heads", &S::heads, 1, 128, "Attention heads (H); each gets d_k = dModel / heads dimensions."),
          int_field("layers", &S::layers, 1, 64, "Layers of the stack (the decoder's, in an encoder–decoder model)."),
          int_field("ffnDim", &S::ffn_dim, 1, 16384, "Width of the feed-forward layer (F)."),
          int_field("maxSeq", &S::max_seq, 1, 8192, "Longest sequence, in tokens (rows of learned positions)."),
          choice_field(
              "positions", &S::positions,
              {{"none", Positions::None}, {"sinusoidal", Positions::Sinusoidal}, {"learned", Positions::Learned}},
              "How positions enter: not at all, the fixed sinusoids, or a learned table pos.weight."),
          bool_field("causal", &S::causal, "Each position attends only to itself and earlier positions (a decoder)."),
          choice_field("norm", &S::norm, {{"post", NormPlacement::Post}, {"pre", NormPlacement::Pre}},
                       "LayerNorm after each residual addition (post, the paper) or before each sub-layer (pre)."),
          bool_field("finalNorm", &S::final_norm, "A LayerNorm after the last layer of each stack."),
          choice_field("activation", &S::activation,
                       {{"relu", Activation::ReLU}, {"gelu", Activation::GELU}, {"gelu_tanh", Activation::GELUTanh}},
                       "The feed-forward activation (gelu is exact; gelu_tanh its tanh approximation)."),
          number_field("layerNormEps", &S::layer_norm_eps, 0.0, true, 1.0, "Added to the variance in every LayerNorm."),
          choice_field("head", &S::head,
                       {{"none", OutputHead::None},
                        {"linear", OutputHead::Linear},
                        {"tied", OutputHead::Tied},
                        {"mlm", OutputHead::Mlm},
                        {"mlm_untied", OutputHead::MlmUntied}},
                       "The output head: none (hidden states only), a linear layer to vocabulary logits, tied to "
                       "the embedding table, BERT's masked-LM head (dense, activation, LayerNorm, then tied), or "
                       "that head with its own decoder weight (mlm_untied)."),
          int_field("encoderLayers", &S::encoder_layers, 0, 64,
                    "Layers of an encoder in front of the stack (0 = a single stack)."),
          bool_field("residual", &S::residual, "Residual connections around each sub-layer (off: an ablation)."),
          bool_field("scale", &S::scale, "Divide the scores by √d_k (off: an ablation)."),
          choice_field("attnActivation", &S::attn_activation,
                       {{"none", Activation::None},
                        {"relu", Activation::ReLU},
                        {"gelu", Activation::GELU},
                        {"gelu_tanh", Activation::GELUTanh}},
                       "An activation on each attention sub-layer's output, after out_proj and before the residual "
                       "add (none in the paper and PyTorch; the others: an ablation)."),
          bool_field("layerNorm", &S::layer_norm,
                     "LayerNorms in every layer and at the end (off: an ablation; each norm is the identity and "
                     "the model has no norm parameters)."),
          int_field(
              "typeVocabSize", &S::type_vocab_size, 0, 1024,
              "Rows of a token-type (segment) embedding added to the input, BERT's sentences A and B (0 = none)."),
          bool_field("embedNorm", &S::embed_norm,
                     "A LayerNorm on embeddings + positions before the first layer (BERT)."),
      },
      {
          {"divides", "heads", "heads", "dModel", 0, "", "", error_code::kNotDivisible,
           "heads ({heads}) must divide dModel ({dModel}): d_k = dModel / heads must be a whole number"},
      }};
  return schema;
}

double parameter_floats(const ModelSpec& s) {
  const double e = s.d_model, f = s.ffn_dim, v = s.vocab_size;
  const double attention = 3 * e * e + 3 * e + e * e + e;
  const double ffn = e * f + f + f * e + e;
  const double norm = s.layer_norm ? 2 * e : 0;  // weight and bias
  const double final_norm = s.has_final_norm() ? norm : 0;
  const double encoder_layer = attention + ffn + 2 * norm;
  const double decoder_layer = 2 * attention + ffn + 3 * norm;
  double total = v * e + (s.positions == Positions::Learned ? s.max_seq * e : 0);
  total += s.type_vocab_size * e + (s.has_embed_norm() ? norm : 0);
  if (s.encoder_decoder()) {
    total += s.encoder_layers * encoder_layer + s.layers * decoder_layer + 2 * final_norm;
  } else {
    total += s.layers * encoder_layer + final_norm;
  }
  if (s.head == OutputHead::Linear) total += v * e + v;
  if (s.head == OutputHead::Tied) total += v;
  if (s.head == OutputHead::Mlm) total += e * e + e + norm + v;
  if (s.head == OutputHead::MlmUntied) total += e * e + e + norm + v * e + v;
  return total;
}

Status validate(const ModelSpec& spec) {
  if (Status s = check(model_spec_schema(), spec); !s) return s;
  if (spec.encoder_decoder() && (spec.type_vocab_size > 0 || spec.embed_norm || spec.mlm_head()))
    return Error{
        "token types, embedNorm and the 'mlm' head are parts of single-stack models (BERT); this spec is an "
        "encoder–decoder (encoderLayers > 0)",
        error_code::kInvalidArgument, "encoderLayers"};
  const double floats = parameter_floats(spec);
  if (floats > kMaxParameterFloats)
    return Error{"this spec has " + std::to_string(static_cast<long long>(floats)) + " parameters; the limit is " +
                     std::to_string(static_cast<long long>(kMaxParameterFloats)) +
                     " (1 GiB of float32): use a smaller dModel, ffnDim, vocabSize or fewer layers",
                 error_code::kLimitExceeded, "dModel"};
  return Ok{};
}

}  // namespace attention
