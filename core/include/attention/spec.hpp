#pragma once
// The architecture of a transformer, separate from how its weights are made. With
// residual and scale on, a spec is exactly a PyTorch model (tests/reference/models.py)
// whose state_dict() keys are our parameter names:
//   embed.weight (V, E); pos.weight (maxSeq, E) for learned positions;
//   a single stack (encoderLayers = 0): layers.{i}.* as nn.TransformerEncoderLayer
//     (batch_first, dropout 0, norm_first = norm 'pre'), causal = a decoder-only stack;
//     norm.* when finalNorm;
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
#include "attention/layers.hpp"
#include "attention/settings.hpp"

namespace attention {

enum class Positions { None, Sinusoidal, Learned };
enum class OutputHead { None, Linear, Tied, Mlm, MlmUntied };

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

  int head_dim() const { return d_model / heads; }  // d_k
  bool encoder_decoder() const { return encoder_layers > 0; }
  bool has_final_norm() const { return final_norm && layer_norm; }  // a final norm with parameters
  bool has_embed_norm() const { return embed_norm && layer_norm; }
  bool tied_head() const { return head == OutputHead::Tied || head == OutputHead::Mlm; }      // logits use embed.weight
  bool mlm_head() const { return head == OutputHead::Mlm || head == OutputHead::MlmUntied; }  // the transform first
  bool head_weight() const {
    return head == OutputHead::Linear || head == OutputHead::MlmUntied;
  }  // head.weight (V, E)
};

// The most floats a model's parameters may hold (1 GiB of float32).
inline constexpr double kMaxParameterFloats = 256.0 * 1024 * 1024;

const Schema<ModelSpec>& model_spec_schema();

// Ranges, rules and the parameter-size limit.
Status validate(const ModelSpec& spec);

// Floats the spec's parameters hold.
double parameter_floats(const ModelSpec& spec);

}  // namespace attention
