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
              {{"none", Positions::None},
               {"sinusoidal", Positions::Sinusoidal},
               {"learned", Positions::Learned},
               {"rope", Positions::Rope},
               {"alibi", Positions::Alibi}},
              "How positions enter: not at all, the fixed sinusoids or a learned table pos.weight added to the "
              "input, q and k rotated by position inside attention (rope), or a per-head penalty on distant "
              "keys added to the scores (alibi)."),
          bool_field("causal", &S::causal, "Each position attends only to itself and earlier positions (a decoder)."),
          choice_field("norm", &S::norm, norm_placement_choices(),
                       "Where the norms sit: after each residual addition (post, the paper), before each sub-layer "
                       "(pre), or before each sub-layer and again on its output before the addition (sandwich, "
                       "Gemma 2 and 3)."),
          bool_field("finalNorm", &S::final_norm, "A LayerNorm after the last layer of each stack."),
          choice_field("activation", &S::activation, ffn_activation_choices(),
                       "The feed-forward activation (gelu is exact; gelu_tanh its tanh approximation; silu is "
                       "x · sigmoid(x)). In a gated FFN it acts on the gate: silu = SwiGLU, gelu_tanh = GeGLU."),
          number_field("layerNormEps", &S::layer_norm_eps, 0.0, true, 1.0,
                       "Added to the variance (LayerNorm) or the mean square (RMSNorm) in every norm."),
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
          int_field("kvHeads", &S::kv_heads, 0, 128,
                    "Key/value heads (H_kv), each shared by heads / kvHeads query heads: grouped-query attention; "
                    "1 = multi-query; 0 = one per head (multi-head attention)."),
          int_field("headDim", &S::head_dim_setting, 0, 1024,
                    "Dimensions per head (d_h); 0 = dModel / heads. Q, K and V are heads × headDim wide."),
          number_field("ropeTheta", &S::rope_theta, 1.0, false, 1e9,
                       "RoPE's base: pair i turns by position × ropeTheta^(−2i / rotary dimensions)."),
          number_field("ropeFraction", &S::rope_fraction, 0.0, true, 1.0,
                       "Share of each head's dimensions that rotate (partial rotary, as GPT-NeoX); the rotary "
                       "dimensions headDim × ropeFraction must be a positive even number."),
          choice_field("ropeScaling", &S::rope_scaling,
                       {{"none", RopeScaling::None}, {"linear", RopeScaling::Linear}, {"llama3", RopeScaling::Llama3}},
                       "Stretch RoPE to longer texts: positions divided by ropeFactor (linear), or Llama 3's "
                       "frequency-dependent stretch (llama3)."),
          number_field("ropeFactor", &S::rope_factor, 1.0, false, 1024.0, "How far ropeScaling stretches."),
          number_field("ropeLowFreqFactor", &S::rope_low_freq_factor, 0.0, true, 1024.0,
                       "llama3 scaling: wavelengths above ropeOriginalContext / this are stretched fully."),
          number_field("ropeHighFreqFactor", &S::rope_high_freq_factor, 0.0, true, 1024.0,
                       "llama3 scaling: wavelengths below ropeOriginalContext / this are kept."),
          int_field("ropeOriginalContext", &S::rope_original_context, 1, 1 << 24,
                    "llama3 scaling: the context the model was first trained on."),
          int_field("window", &S::window, 0, 1 << 24,
                    "Sliding-window attention: query i sees only keys j with i − window < j; 0 = no window."),
          int_field("windowPattern", &S::window_pattern, 0, 64,
                    "With a window: 0 or 1 = every layer local; N > 1 = every Nth layer global (Gemma 3: 6)."),
          number_field("ropeLocalTheta", &S::rope_local_theta, 0.0, false, 1e9,
                       "RoPE's base in local (windowed) layers; 0 = ropeTheta."),
          choice_field("normType", &S::norm_type,
                       {{"layernorm", NormType::LayerNorm},
                        {"rmsnorm", NormType::RmsNorm},
                        {"rmsnorm_offset", NormType::RmsNormOffset}},
                       "LayerNorm (subtract the mean, divide by the deviation, scale and shift), RMSNorm (divide "
                       "by the root mean square and scale; the mean stays), or RMSNorm scaling by 1 + w (Gemma)."),
          choice_field("ffn", &S::ffn, {{"standard", FfnKind::Standard}, {"gated", FfnKind::Gated}},
                       "The feed-forward layer: linear2(act(linear1 x)), or gated: down(act(gate x) · up x) "
                       "(SwiGLU with silu, GeGLU with gelu_tanh)."),
          bool_field("qkNorm", &S::qk_norm, "An RMSNorm over each head's q and k before RoPE (Qwen 3, Gemma 3)."),
          bool_field("qkvBias", &S::qkv_bias, "Biases on the q, k and v projections."),
          bool_field("outBias", &S::out_bias, "A bias on the attention's output projection."),
          bool_field("mlpBias", &S::mlp_bias, "Biases in the feed-forward layer."),
          bool_field("headBias", &S::head_bias, "A bias on the output head's logits."),
          bool_field("embedScale", &S::embed_scale, "Multiply the token embeddings by √dModel (Gemma)."),
          number_field("queryPreAttnScalar", &S::query_pre_attn_scalar, 0.0, false, 1e6,
                       "Divide the scores by √queryPreAttnScalar instead of √headDim (Gemma); 0 = headDim."),
      },
      {
          {"divides", "heads", "heads", "dModel", 0, "headDim", 0, error_code::kNotDivisible,
           "heads ({heads}) must divide dModel ({dModel}): d_k = dModel / heads must be a whole number (or set "
           "headDim)"},
          {"divides", "kvHeads", "kvHeads", "heads", 0, "", "", error_code::kNotDivisible,
           "kvHeads ({kvHeads}) must divide heads ({heads}): each key/value head serves a whole group of query heads"},
      }};
  return schema;
}

double parameter_floats(const ModelSpec& s) {
  const double e = s.d_model, f = s.ffn_dim, v = s.vocab_size;
  const double dh = s.head_dim(), q = s.heads * dh, kv = s.kv_head_count() * dh;
  const double qkv = q + 2 * kv;
  const double attention =
      qkv * e + (s.qkv_bias ? qkv : 0) + e * q + (s.out_bias ? e : 0) + (s.has_qk_norm() ? 2 * dh : 0);
  const double up = s.ffn == FfnKind::Gated ? 2 * f : f;
  const double ffn = e * up + f * e + (s.mlp_bias ? up + e : 0);
  const double norm = !s.layer_norm ? 0 : s.norm_type == NormType::LayerNorm ? 2 * e : e;  // weight (and bias)
  const double final_norm = s.has_final_norm() ? norm : 0;
  const double post_norms = s.sandwich() ? norm : 0;  // sandwich: one more norm per sub-layer
  const double encoder_layer = attention + ffn + 2 * (norm + post_norms);
  const double decoder_layer = 2 * attention + ffn + 3 * (norm + post_norms);
  double total = v * e + (s.positions == Positions::Learned ? s.max_seq * e : 0);
  total += s.type_vocab_size * e + (s.has_embed_norm() ? norm : 0);
  if (s.encoder_decoder()) {
    total += s.encoder_layers * encoder_layer + s.layers * decoder_layer + 2 * final_norm;
  } else {
    total += s.layers * encoder_layer + final_norm;
  }
  const double bias = s.head_bias ? v : 0;
  if (s.head == OutputHead::Linear) total += v * e + bias;
  if (s.head == OutputHead::Tied) total += bias;
  if (s.head == OutputHead::Mlm) total += e * e + e + norm + v;
  if (s.head == OutputHead::MlmUntied) total += e * e + e + norm + v * e + v;
  return total;
}

namespace {

// The modern block's checks that are not rules between two settings.
Status check_modern_block(const ModelSpec& s) {
  const auto error = [](std::string message, const char* field) {
    return Error{std::move(message), error_code::kInvalidArgument, field};
  };
  if (s.positions == Positions::Rope) {
    const int rot = s.rotary_dim();
    if (rot < 2 || rot % 2 != 0)
      return error("RoPE rotates pairs of dimensions: headDim (" + std::to_string(s.head_dim()) + ") × ropeFraction (" +
                       settings_detail::number_text(s.rope_fraction) +
                       ") = " + settings_detail::number_text(s.head_dim() * s.rope_fraction) +
                       " must be a positive even number of rotary dimensions",
                   "ropeFraction");
    if (s.rope_scaling == RopeScaling::Llama3 && !(s.rope_low_freq_factor < s.rope_high_freq_factor))
      return error("llama3 RoPE scaling needs ropeLowFreqFactor (" +
                       settings_detail::number_text(s.rope_low_freq_factor) + ") below ropeHighFreqFactor (" +
                       settings_detail::number_text(s.rope_high_freq_factor) + ")",
                   "ropeHighFreqFactor");
  } else if (s.rope_scaling != RopeScaling::None) {
    return error("ropeScaling applies to positions 'rope' only", "ropeScaling");
  }
  if (s.window_pattern > 1 && s.window == 0)
    return error("windowPattern " + std::to_string(s.window_pattern) +
                     " picks which layers are local, but there is no window (window 0)",
                 "windowPattern");
  if (s.encoder_decoder()) {
    if (s.positions == Positions::Rope || s.positions == Positions::Alibi)
      return error(
          "positions 'rope' and 'alibi' are parts of single-stack models; this spec is an encoder–decoder "
          "(encoderLayers > 0)",
          "positions");
    if (s.window > 0)
      return error("a sliding window is a part of single-stack models; this spec is an encoder–decoder", "window");
  }
  if (s.mlm_head() && (s.norm_type != NormType::LayerNorm || s.ffn != FfnKind::Standard))
    return error("the 'mlm' heads are BERT's, with LayerNorm and a standard FFN", "head");
  return Ok{};
}

}  // namespace

Status validate(const ModelSpec& spec) {
  if (Status s = check(model_spec_schema(), spec); !s) return s;
  if (spec.encoder_decoder() && (spec.type_vocab_size > 0 || spec.embed_norm || spec.mlm_head()))
    return Error{
        "token types, embedNorm and the 'mlm' head are parts of single-stack models (BERT); this spec is an "
        "encoder–decoder (encoderLayers > 0)",
        error_code::kInvalidArgument, "encoderLayers"};
  if (Status s = check_modern_block(spec); !s) return s;
  return check_parameter_bytes(spec, Storage::Q8_0);
}

double matrix_floats(const ModelSpec& s) {
  const double e = s.d_model, f = s.ffn_dim, v = s.vocab_size;
  const double dh = s.head_dim(), q = s.heads * dh, kv = s.kv_head_count() * dh;
  const double attention = (q + 2 * kv) * e + e * q;  // in_proj, out_proj
  const double ffn = e * (s.ffn == FfnKind::Gated ? 2 * f : f) + f * e;
  double total = v * e;  // the embedding table
  total += s.encoder_decoder() ? s.encoder_layers * (attention + ffn) + s.layers * (2 * attention + ffn)
                               : s.layers * (attention + ffn);
  if (s.head == OutputHead::Linear || s.head == OutputHead::MlmUntied) total += v * e;
  if (s.head == OutputHead::Mlm || s.head == OutputHead::MlmUntied) total += e * e;
  return total;
}

Status check_parameter_bytes(const ModelSpec& spec, Storage matrix_storage) {
  const double matrices = matrix_floats(spec), all = parameter_floats(spec);
  const double per_value = static_cast<double>(row_bytes(matrix_storage, kQ8BlockValues)) / kQ8BlockValues;
  const double bytes = matrices * per_value + (all - matrices) * 4;
  if (bytes <= kMaxParameterBytes) return Ok{};
  const auto gib = [](double b) {
    const std::string text = std::to_string(b / (1024.0 * 1024 * 1024));
    return text.substr(0, text.find('.') + 3);
  };
  return Error{"this spec has " + std::to_string(static_cast<long long>(all)) + " parameters, " + gib(bytes) +
                   " GiB with its matrices held as " + to_string(matrix_storage) + "; the limit is " +
                   gib(kMaxParameterBytes) + " GiB: use a smaller dModel, ffnDim, vocabSize or fewer layers",
               error_code::kLimitExceeded, "dModel"};
}

}  // namespace attention
