#pragma once
// The architecture of a transformer, separate from how its weights are made. With
// residual and scale on, a spec is exactly a PyTorch model (tests/reference/models.py)
// whose state_dict() keys are our parameter names:
//   embed.weight (V, E); pos.weight (maxSeq, E) for learned positions;
//   a single stack (encoderLayers = 0): layers.{i}.* as nn.TransformerEncoderLayer
//     (batch_first, dropout 0, norm_first = norm 'pre'), causal = a decoder-only stack;
//     norm.* when finalNorm;
//   (a "modern" block, below, keeps these names with other shapes)
//   encoder–decoder (encoderLayers > 0): encoder.layers.{i}.*, encoder.norm.*,
//     decoder.layers.{i}.* (self_attn, multihead_attn, linear1/2, norm1/2/3),
//     decoder.norm.*, as nn.Transformer; causal applies to the decoder's self-attention;
//   head.weight (V, E) and head.bias (V) for head 'linear'; head.bias only for 'tied'
//     (the output uses embed.weight).
// Hidden state h = embed[ids] + positions (no sqrt(E) factor).
//
// Parts of the pretrained families (GPT-2 and BERT, pretrained.hpp), which have no
// nn.Transformer twin; single stacks only, and not trained by the Trainer:
//   typeVocabSize > 0: token_type.weight (T, E); h += token_type[type_ids] (BERT's
//                     segments A/B; ForwardInput::token_types, all 0 when absent).
//   embedNorm:        embed_norm.weight / .bias (E): h = LayerNorm(h) before the first
//                     layer (BERT's embeddings.LayerNorm); the stage "<stack>.input" is
//                     then the normalised h, what the first layer reads.
//   head 'mlm':       BERT's masked-LM head: head.dense.weight (E, E) / .bias (E), the
//                     FFN activation, head.norm.weight / .bias (E), then tied to
//                     embed.weight with head.bias (V):
//                     logits = norm(act(h W_d^T + b_d)) embed^T + b.
//   head 'mlm_untied': the same transform, then its own decoder head.weight (V, E)
//                     and head.bias (V) instead of embed.weight (a BERT config with
//                     tie_word_embeddings false).
//
// Ablations, each off-switch of something PyTorch's layers always do, or an addition
// they never make (a spec that uses one has no PyTorch twin):
//   residual false:   no residual connections (post: norm(f(x)), pre: f(norm(x))).
//   scale false:      softmax(Q K^T) instead of softmax(Q K^T / sqrt(d_k)).
//   attnActivation:   'relu' | 'gelu' | 'gelu_tanh' applied element by element to each
//                     attention sub-layer's output (B, Sq, E), after out_proj and before
//                     the residual add (pre-LN) or the add and norm (post-LN), in
//                     self- and cross-attention; recorded as "<stack>.<block>.activated".
//                     'none' (the default) is the paper's and PyTorch's layer.
//   layerNorm false:  every LayerNorm (norm1/2/3 of each layer and the final norms) is
//                     the identity, and the model has no norm parameters at all: no
//                     *.norm*.weight / .bias in visit_parameters, state_dict, files or
//                     parameter_floats; nor norm stages in the trace. Post- and pre-LN
//                     then both compute x + f(x), and finalNorm changes nothing.
//
// The modern block (Llama, Qwen 2/3, Gemma 3, Mistral, ALiBi models): the same stack
// with options, not a second model. d_h = headDim (0 = dModel / heads), H_kv = kvHeads
// (0 = heads), groups of H / H_kv query heads share one K/V head (head h reads K/V head
// h / (H / H_kv)). Names and shapes (Hugging Face's modules -> ours, tests/reference/
// hf_modern.py maps them; the hub loader does the same):
//   layers.{i}.self_attn.in_proj_weight ((H + 2 H_kv) d_h, E): q_proj rows, then k_proj,
//     then v_proj, each in HF's order (q_proj.weight (H d_h, E) etc.);
//   .in_proj_bias ((H + 2 H_kv) d_h) only with qkvBias; .out_proj.weight (E, H d_h)
//     (HF o_proj), .out_proj.bias (E) only with outBias;
//   .self_attn.q_norm.weight / .k_norm.weight (d_h) with qkNorm (Qwen 3, Gemma 3: an
//     RMSNorm over each head's q and k, weights shared by the heads, before RoPE);
//   linear1 ((2F or F), E): for ffn 'gated' the rows are [gate_proj; up_proj] (HF's
//     gate_proj.weight (F, E) then up_proj.weight (F, E)), and linear2 (E, F) is
//     down_proj: linear2(act(gate) * up); biases linear1.bias / linear2.bias with mlpBias;
//   norm1 / norm2: the sub-layers' norms (HF input_layernorm / post_attention_layernorm
//     for pre-norm models; Gemma: input_layernorm / pre_feedforward_layernorm); with
//     norm 'sandwich' also post_norm1 / post_norm2 (Gemma's post_attention_layernorm /
//     post_feedforward_layernorm) on each sub-layer's output before the residual add;
//   RMSNorms (normType rmsnorm, rmsnorm_offset) have a weight and no bias;
//   head.bias only with headBias (Llama's lm_head has none; 'tied' without it has no
//     head parameter at all).
// Positions rope and alibi add nothing to h; they act inside self-attention:
//   rope: q and k (B, H, S, d_h) rotated per position with Hugging Face's rotate-half
//     layout over the first rot = d_h * ropeFraction dimensions (pairs (i, i + rot/2)),
//     inv_freq_i = ropeTheta^(-2i / rot), scaled by ropeScaling (linear: / factor;
//     llama3: HF's _compute_llama3_parameters); cross-attention is not rotated.
//   alibi: score(i, j) += -slope_h |i - j| (Press et al.: slopes 2^(-8 (h+1) / H) for H a
//     power of two, else the closest power of two's slopes then every other slope of
//     twice as many), after the scaling and before the mask; self-attention only.
// window w > 0: a query i sees key j only when i - w < j (and j < i + w without causal):
//   every layer, or with windowPattern N > 1 every Nth layer (i + 1 divisible by N) is
//   global (Gemma 3). With ropeLocalTheta set, local layers rotate with that base and no
//   ropeScaling (Gemma 3's rotary_emb_local); 0 = every layer rotates alike.
// Scores are divided by sqrt(queryPreAttnScalar) when it is set (Gemma), else sqrt(d_h).
// embedScale: h = embed[ids] * sqrt(E) (Gemma; computed in float32).
#include "attention/layers.hpp"
#include "attention/rope.hpp"
#include "attention/settings.hpp"
#include "attention/storage.hpp"

namespace attention {

enum class Positions { None, Sinusoidal, Learned, Rope, Alibi };
enum class OutputHead { None, Linear, Tied, Mlm, MlmUntied };
enum class FfnKind { Standard, Gated };

struct ModelSpec {
  int vocab_size = 64;
  int d_model = 64;
  int heads = 4;
  int layers = 2;
  int ffn_dim = 256;
  int max_seq = 128;
  Positions positions = Positions::Sinusoidal;
  bool causal = false;
  NormPlacement norm = NormPlacement::Post;
  bool final_norm = false;
  Activation activation = Activation::ReLU;
  double layer_norm_eps = 1e-5;  // as written (used in float32 by each LayerNorm)
  OutputHead head = OutputHead::Linear;
  int encoder_layers = 0;
  bool residual = true;                           // ablation: residual connections around each sub-layer
  bool scale = true;                              // ablation: divide scores by sqrt(d_k)
  Activation attn_activation = Activation::None;  // ablation: an activation after attention
  bool layer_norm = true;   // ablation: false = every LayerNorm is the identity, without parameters
  int type_vocab_size = 0;  // BERT's token types (segments); 0 = none
  bool embed_norm = false;  // BERT's LayerNorm on the embedding sum
  // The modern block (see the top of this file).
  int kv_heads = 0;          // H_kv; 0 = heads (multi-head attention)
  int head_dim_setting = 0;  // d_h; 0 = dModel / heads
  double rope_theta = 10000.0;
  double rope_fraction = 1.0;  // share of each head's dimensions that rotate
  RopeScaling rope_scaling = RopeScaling::None;
  double rope_factor = 1.0;            // linear and llama3
  double rope_low_freq_factor = 1.0;   // llama3
  double rope_high_freq_factor = 4.0;  // llama3
  int rope_original_context = 8192;    // llama3: original_max_position_embeddings
  int window = 0;                      // sliding window (0 = none)
  int window_pattern = 0;              // > 1: every Nth layer is global, the others local
  double rope_local_theta = 0.0;       // RoPE base of local (windowed) layers; 0 = ropeTheta
  NormType norm_type = NormType::LayerNorm;
  FfnKind ffn = FfnKind::Standard;
  bool qk_norm = false;
  bool qkv_bias = true;
  bool out_bias = true;
  bool mlp_bias = true;
  bool head_bias = true;
  bool embed_scale = false;
  double query_pre_attn_scalar = 0.0;  // 0 = d_h

  int head_dim() const { return head_dim_setting > 0 ? head_dim_setting : d_model / heads; }  // d_k = d_h
  int kv_head_count() const { return kv_heads > 0 ? kv_heads : heads; }
  int rotary_dim() const { return positions == Positions::Rope ? static_cast<int>(head_dim() * rope_fraction) : 0; }
  // Layer l attends through the window (a local layer).
  bool local_layer(int l) const { return window > 0 && (window_pattern <= 1 || (l + 1) % window_pattern != 0); }
  bool has_qk_norm() const { return qk_norm && layer_norm; }
  bool sandwich() const { return norm == NormPlacement::Sandwich; }
  bool encoder_decoder() const { return encoder_layers > 0; }
  bool has_final_norm() const { return final_norm && layer_norm; }  // a final norm with parameters
  bool has_embed_norm() const { return embed_norm && layer_norm; }
  bool tied_head() const { return head == OutputHead::Tied || head == OutputHead::Mlm; }      // logits use embed.weight
  bool mlm_head() const { return head == OutputHead::Mlm || head == OutputHead::MlmUntied; }  // the transform first
  bool head_weight() const {
    return head == OutputHead::Linear || head == OutputHead::MlmUntied;
  }  // head.weight (V, E)
};

// The most bytes a model's parameters may hold (1.5 GiB): 4 a value in float32; the
// matrices of a checkpoint held in 16 or 8 bits (storage.hpp) count at their size.
inline constexpr double kMaxParameterBytes = 1.5 * 1024 * 1024 * 1024;

const Schema<ModelSpec>& model_spec_schema();

// Ranges, rules, and that the parameters fit kMaxParameterBytes in the smallest storage
// (Q8_0): a checkpoint's config.json is checked before its weights mode is known.
Status validate(const ModelSpec& spec);

// That the parameters fit kMaxParameterBytes with the matrices (check_parameter_bytes's
// matrix_floats) held in `matrix_storage`, everything else in float32: Transformer::create
// checks it for the storage it makes.
Status check_parameter_bytes(const ModelSpec& spec, Storage matrix_storage);

// Floats of the matrices that may be held in 16 or 8 bits: the embedding table, the linear
// layers' weights and an untied head.
double matrix_floats(const ModelSpec& spec);

// Floats the spec's parameters hold.
double parameter_floats(const ModelSpec& spec);

}  // namespace attention
