#pragma once
// A transformer with named parameters, built from a ModelSpec (spec.hpp): token ids
// in, hidden states and logits out, with a Trace of the stages asked for. Its
// parameters are walked in one fixed order (PyTorch's state_dict order) by
// visit_parameters, which serves initialisation, loading, saving and the optimizer.
#include <cstdint>
#include <string>
#include <vector>

#include "attention/kv_cache.hpp"
#include "attention/layers.hpp"
#include "attention/param.hpp"
#include "attention/result.hpp"
#include "attention/spec.hpp"
#include "attention/trace.hpp"

namespace attention {

struct ForwardInput {
  std::vector<int> ids;  // (B, S) token ids, row-major
  int batch = 0, seq = 0;
  std::vector<int> lengths;      // (B) real tokens per sequence, 0..S; empty = all S
  std::vector<int> token_types;  // (B, S) segment ids 0..typeVocabSize-1; empty = all 0
  // Encoder–decoder specs: the encoder's input, likewise. ids above are the decoder's.
  std::vector<int> source_ids;
  int source_seq = 0;
  std::vector<int> source_lengths;
};

// One attention head: head `head` (0..heads-1) of the self-attention of layer `layer`
// (0..layers-1) of a single stack (encoderLayers 0).
struct HeadRef {
  int layer = 0;
  int head = 0;
  int row = -1;  // the batch row it applies to, 0..B-1, or -1 for every row (ablation_ranking
                 // runs one ablation per row)
};

// The MLP (the feed-forward sub-layer) of layer `layer` of a single stack, in batch row `row`
// (-1: every row).
struct MlpRef {
  int layer = 0;
  int row = -1;
};

// Mean ablation's replacements: per-position means over a reference batch of S-token
// sequences (core/include/attention/analysis/ablation.hpp computes them).
struct AblationMeans {
  int seq = 0;                // S: the forward pass must have exactly this many positions
  std::vector<Tensor> heads;  // per layer (H, S, d_h): each head's context, weights x V
  std::vector<Tensor> mlps;   // per layer (S, E): the MLP's output, before any post-norm
};

// Which rows of the logits a forward pass computes (the output layer over a large
// vocabulary is a third of GPT-2 small's work, and a next-token view needs one row).
enum class LogitRows {
  All,   // (B, S, V)
  Last,  // (B, 1, V): each sequence's last real position (lengths[b] - 1; 0 when empty)
  None,  // no logits (empty)
};

struct ForwardOptions {
  Backend backend = Backend::Fast;
  LogitRows logits = LogitRows::All;
  const RecordFilter* record = nullptr;  // which stages to keep; null = no trace at all
  // Heads switched off (head ablation; repeats allowed): each one's context, weights x V
  // (B, Sq, d_k), is zero before the heads are merged, so out_proj sees nothing of it;
  // its weights are computed and recorded as usual. Single stacks only: an
  // encoder–decoder is refused (field "ablate"). Bad entries: "ablate.layer", "ablate.head".
  std::vector<HeadRef> ablated_heads;
  // MLPs switched off (repeats allowed): the feed-forward sub-layer's output (B, S, E), before
  // any post-norm and the residual add, is zero (or its mean). Bad entries: "ablateMlps".
  std::vector<MlpRef> ablated_mlps;
  // Mean ablation: null = ablated heads and MLPs write zero; else each writes its per-position
  // mean from here (means->seq must equal the forward's seq: field "meanOver").
  const AblationMeans* means = nullptr;
};

struct ForwardOutput {
  Tensor hidden;  // (B, S, E): the last stack's output after its final norm
  Tensor logits;  // (B, S, V) when the spec has a head (B, 1, V) for LogitRows::Last, else empty
  Trace trace;    // the recorded stages (tokens left empty: ids have no text)
};

// Largest working set one forward pass may build, in floats (256 MiB). Checked before
// anything is allocated.
inline constexpr std::size_t kMaxTraceFloats = std::size_t{64} << 20;

class Transformer {
 public:
  // A model of a valid spec with every parameter zero (fill it with initialize() or
  // load()); the spec is validated first.
  // matrix_storage: how the matrix weights are held (linear weights, the embedding
  // table, the untied head; storage.hpp): F32, or 16 / 8 bits for a checkpoint loader
  // to fill (such a model is read-only). Norms, biases and positions are always F32.
  static Result<Transformer> create(const ModelSpec& spec, Storage matrix_storage = Storage::F32);

  const ModelSpec& spec() const { return spec_; }

  // Every parameter in state_dict order.
  template <class F>
  void visit_parameters(F&& f) {
    for (Parameter* p : parameter_list()) f(*p);
  }
  template <class F>
  void visit_parameters(F&& f) const {
    for (Parameter* p : const_cast<Transformer*>(this)->parameter_list()) f(static_cast<const Parameter&>(*p));
  }
  Parameter* find_parameter(const std::string& name);

  // Deterministic random weights from a seed: Xavier-uniform matrices, embeddings and
  // learned positions N(0, 1)-like (uniform, unit variance), zero biases, LayerNorm (1, 0).
  void initialize_random(std::uint64_t seed);

  // Replaces the embedding table with `vocab_size` rows (the playground's vocabulary
  // changes with the text). values: (vocab_size, E). Only for specs without a head.
  Status set_embeddings(int vocab_size, std::vector<float> values);

  // Bytes of parameter values held, in total and by storage (F32, BF16, F16, Q8_0).
  struct WeightBytes {
    std::size_t f32 = 0, bf16 = 0, f16 = 0, q8_0 = 0;
    std::size_t total() const { return f32 + bf16 + f16 + q8_0; }
  };
  WeightBytes weight_bytes() const;

  // Ok when every parameter can be written (all F32); else the first read-only one's
  // Error (kReadOnly, naming it): training and loading weights into the model check it.
  Status writable() const;

  Result<ForwardOutput> forward(const ForwardInput& input, const ForwardOptions& options = {}) const;

  // The checks forward() makes before it allocates: ids in the vocabulary, lengths,
  // sequence lengths within maxSeq, and the memory a pass would hold (with the stages
  // `kept` keeps when `recording`, every stage when `kept` is null; the logits' rows as
  // `logit_rows` asks).
  Status check_input(const ForwardInput& input, bool recording, const RecordFilter* kept = nullptr,
                     LogitRows logit_rows = LogitRows::All) const;

  // Heads to ablate (ForwardOptions::ablated_heads): layers and heads in range, and a
  // single stack.
  Status check_ablated_heads(const std::vector<HeadRef>& heads) const;
  // Every ablation of a forward pass over `batch` rows of `seq` positions: the heads, the
  // MLPs ("ablateMlps"), their rows (-1..batch-1) and the means' shapes ("meanOver").
  Status check_ablation(const ForwardOptions& options, int batch, int seq) const;

  // The stack's input h = embed[ids] + positions (+ token_type[types]), normalised when
  // the spec has embedNorm: (B, S, E), recording embeddings, positions, token types and
  // input under `outer`; an Error if float32 overflowed. Ids are checked; `types` is
  // empty or (B, S) checked segment ids. `positions`: (B, S) absolute positions of the rows
  // (below maxSeq), or empty for 0..S-1 in every sequence.
  Result<Tensor> embed_input(const std::vector<int>& ids, int batch, int seq, const std::string& stack,
                             const Recorder& outer = {}, const std::vector<int>& types = {},
                             const std::vector<int>& positions = {}) const;

  // Incremental decoding (causal single stacks): an empty cache for `batch` sequences, and
  // a forward over a block of new rows that continues each sequence from its cached length
  // (kv_cache.hpp). in.ids: (B, Sn) right-padded; in.lengths: the real new rows of each
  // sequence, 1..Sn (empty = all Sn). The logits equal those of forward() over each
  // sequence's whole text at its last real row; the cache is extended only when the whole
  // step succeeded (an Error leaves it as it was).
  KvCache new_cache(int batch) const;
  Status check_cached(const ForwardInput& in, const KvCache& cache) const;
  struct CachedStep {
    Tensor logits;                  // (B, V): at each sequence's last real new row
    std::vector<Tensor> attention;  // per layer (B, H, P): that row's weights over positions 0..P-1
  };
  Result<CachedStep> forward_cached(const ForwardInput& in, KvCache& cache, Backend backend = Backend::Fast) const;
  // The same into `out`, whose logits' buffer is reused when it already has (B, V) floats (a
  // generation's steps: no allocation or zeroing of V floats a step); its attention is replaced.
  Status forward_cached(const ForwardInput& in, KvCache& cache, Backend backend, CachedStep& out) const;

  // The parts, for the preset fillers, training (train/backprop.cpp) and tests.
  std::vector<EncoderLayerWeights>& encoder_layers() { return layers_; }
  std::vector<DecoderLayerWeights>& decoder_layers() { return decoder_layers_; }
  const std::vector<EncoderLayerWeights>& encoder_layers() const { return layers_; }
  const std::vector<DecoderLayerWeights>& decoder_layers() const { return decoder_layers_; }
  Parameter& embed() { return embed_; }
  Parameter& positions() { return pos_; }
  Parameter& token_types() { return token_type_; }
  LayerNormWeights& embed_norm() { return embed_norm_; }
  LinearWeights& mlm_dense() { return head_dense_; }  // head 'mlm': its transform
  LayerNormWeights& mlm_norm() { return head_norm_; }
  LayerNormWeights& final_norm() { return norm_; }  // the single stack's or the encoder's
  LayerNormWeights& decoder_final_norm() { return decoder_norm_; }
  LinearWeights& head() { return head_; }  // weight empty when tied
  // Read-only views for the analysis tools (core/src/analysis/): the unembedding a forward
  // pass applies to its hidden states.
  const Parameter& embed() const { return embed_; }
  const LayerNormWeights& final_norm() const { return norm_; }
  const LinearWeights& head() const { return head_; }
  const LinearWeights& mlm_dense() const { return head_dense_; }  // head 'mlm': its transform
  const LayerNormWeights& mlm_norm() const { return head_norm_; }

 private:
  Transformer(const ModelSpec& spec, Storage matrix_storage);
  std::vector<Parameter*> parameter_list();
  // The 'mlm' head's transform of hidden (B, S, E) -> (B, S, E).
  Tensor mlm_transform(const Tensor& hidden, Backend backend) const;
  // The output head over rows: (B, S, E) -> logits (B, S, V), every element written (its
  // buffer reused when it already holds B S V floats).
  Status head_logits(const Tensor& rows, Backend backend, Tensor& logits) const;

  ModelSpec spec_;
  Parameter embed_, pos_, token_type_;
  LayerNormWeights embed_norm_;                      // embedNorm only
  std::vector<EncoderLayerWeights> layers_;          // the single stack, or the encoder
  std::vector<DecoderLayerWeights> decoder_layers_;  // encoder–decoder only
  LayerNormWeights norm_, decoder_norm_;             // final norms (norm_ of the single stack or encoder)
  LinearWeights head_;
  LinearWeights head_dense_;  // head 'mlm' only: its transform
  LayerNormWeights head_norm_;
};

// Where positions enter one layer's self-attention (the modern block, spec.hpp): its
// RoPE table (local layers may have their own base), ALiBi, and its window (0 = global).
// RopeTables (global and local tables): kv_cache.hpp, where a generation keeps them.
RopeTables rope_tables(const ModelSpec& spec, int positions);
struct LayerPositions {
  const RopeTable* rope = nullptr;
  bool alibi = false;
  int window = 0;
};
LayerPositions layer_positions(const ModelSpec& spec, int layer, const RopeTables& tables);
// The factor of q . k: 1/sqrt(queryPreAttnScalar) when set, else 0 (= 1/sqrt(d_h)).
float score_scale(const ModelSpec& spec);
// The options every layer of the spec shares (positions and ablations are set per layer).
LayerOptions layer_options(const ModelSpec& spec, Backend backend);

// The heads of `layer` in `heads`, as MultiHeadOptions::ablated_heads takes them.
std::vector<int> heads_of_layer(const std::vector<HeadRef>& heads, int layer);
// Their rows, in the same order (MultiHeadOptions::ablated_rows).
std::vector<int> head_rows_of_layer(const std::vector<HeadRef>& heads, int layer);
// The rows whose MLP of `layer` is ablated (-1: every row), as LayerOptions::ablated_mlp_rows.
std::vector<int> mlp_rows_of_layer(const std::vector<MlpRef>& mlps, int layer);

// Floats one forward pass holds at most (with every stage recorded when `recording`).
double estimate_forward_floats(const ModelSpec& spec, int batch, int seq, int source_seq, bool recording);

// Floats the stages `filter` keeps hold once recorded (core/src/recorded_size.cpp), every
// stage at the size its axes give; a forward recording them holds at most its unrecorded
// working set plus this.
double recorded_stage_floats(const ModelSpec& spec, const RecordFilter& filter, int batch, int seq, int source_seq);

}  // namespace attention
