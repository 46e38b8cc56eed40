#pragma once
// Pretrained checkpoints as a model hub stores them: config.json, model.safetensors
// (or shards listed by model.safetensors.index.json) for the GPT-2 and BERT families,
// read into a Transformer whose parameters keep the engine's names (spec.hpp).
//
//   GPT-2 (model_type "gpt2"): learned positions, pre-LN blocks, final ln_f, causal,
//     gelu_new (tanh) FFN. Conv1D weights are stored (in, out) and transposed on load;
//     c_attn is already the fused (q, k, v) projection.
//   BERT (model_type "bert"): word + position + token-type embeddings with a LayerNorm,
//     post-LN blocks, exact GELU, separate query / key / value (fused on load into
//     in_proj rows [0, E), [E, 2E), [2E, 3E)), no causal mask; the masked-LM head
//     (head 'mlm') when the config names a ...ForMaskedLM or ...ForPreTraining class.
//   The modern decoders (model_type "llama" (also SmolLM2, TinyLlama, Llama 3.x), "qwen2",
//     "qwen3", "gemma3_text", "gemma3" (Gemma3ForConditionalGeneration: its text model,
//     read from text_config and the language_model tensors), "mistral"): the modern block
//     of spec.hpp, RoPE, grouped K/V heads, RMSNorm, gated FFN. q_proj / k_proj / v_proj
//     fuse into in_proj rows [0, H d_h), [H d_h, (H + H_kv) d_h), [(H + H_kv) d_h, (H +
//     2 H_kv) d_h); gate_proj / up_proj into linear1 rows [0, F), [F, 2F). Which config
//     keys map to which settings, with each class's defaults: docs/pretrained.md and
//     core/src/pretrained/modern_config.cpp. Tying as below (default false for Llama,
//     Qwen 2 / 3 and Mistral, true for Gemma 3); their lm_head has no bias.
//
// Tying, as Hugging Face reads config.json's tie_word_embeddings (default true for both):
//   true:  the output uses the word embeddings (GPT-2 head 'tied', BERT head 'mlm');
//          lm_head.weight / cls.predictions.decoder.weight are a second name of the
//          embedding table: either name fills it, and a file holding both must give
//          both the same values (else code tied_mismatch, naming both).
//   false: the output has its own weight (GPT-2 head 'linear', BERT 'mlm_untied'),
//          read from lm_head.weight / cls.predictions.decoder.weight, which must be there.
// BERT's cls.predictions.bias and cls.predictions.decoder.bias are one tensor under
// two names, by the same rule.
//
// Hub names may carry the class prefix ("transformer." for GPT2LMHeadModel, "bert."
// for BertFor..., "language_model.model." or "model.language_model." for the multimodal
// Gemma 3, whose vision tower and projector are skipped by name), BERT's legacy LayerNorm names (gamma, beta) are read
// as weight, bias. Buffers and parts the engine has no use for are skipped by name (GPT-2's attn.bias /
// attn.masked_bias mask tables, BERT's position_ids, pooler and next-sentence head); any other tensor, a missing one, a
// wrong shape, a dtype other than F32 / F16 / BF16 or a value that is not finite is an Error naming the tensor, and
// nothing is built.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attention/result.hpp"
#include "attention/spec.hpp"
#include "attention/transformer.hpp"

namespace attention::pretrained {

enum class Family { Gpt2, Bert, Llama, Qwen2, Qwen3, Gemma3Text, Gemma3, Mistral };
const char* to_string(Family family);

// A family as config.json names it (model_type) and the tokenizer its checkpoints carry
// ("bpe": GPT-2's byte-level BPE, "wordpiece": BERT's, "tokenizer.json": the modern
// families' tokenizer.json + tokenizer_config.json, read by the package). Declared once
// (hub_config.cpp, modern_config.cpp); the engine's description lists them, and the
// package's types derive from that.
struct FamilyInfo {
  Family family;
  const char* model_type;
  const char* tokenizer;
};
const std::vector<FamilyInfo>& family_infos();

// What config.json says, as the engine's spec plus what the spec does not hold.
struct HubConfig {
  Family family = Family::Gpt2;
  std::string model_type;    // "gpt2", "bert", "llama", ...
  std::string architecture;  // architectures[0], or "" when absent
  ModelSpec spec;
  int pad_token_id = -1;  // -1 when the config has none
};

// Reads and checks config.json. Errors name the config key in `field`
// (code kBadFile for malformed JSON or a wrong type, kOutOfRange / kInvalidArgument for
// values the engine cannot run, kLimitExceeded for models over the parameter limit).
Result<HubConfig> read_config(const std::string& json_text);

// model.safetensors.index.json: the shard file of every tensor, and the files in
// order of first appearance. Errors name the key.
struct ShardIndex {
  std::map<std::string, std::string> weight_map;  // tensor name -> file name
  std::vector<std::string> files;
};
Result<ShardIndex> read_shard_index(const std::string& json_text);

// How a loaded checkpoint's matrix weights (linear weights, the embedding table, an
// untied head) are held in memory (storage.hpp); norms, biases and positions are F32.
//   F32   every value widened to float32 (4 bytes a value; the model can be trained
//         and written).
//   Auto  as the file stores each matrix: F16 and BF16 stay 16-bit, F32 stays F32
//         (a matrix whose parts come in different dtypes is held F32). Results are
//         those of the float32 engine on the file's values; the model is read-only.
//   BF16  every matrix BF16: F32 and F16 values rounded to nearest-even on load (F16 keeps
//         8 of its 11 significant bits), BF16 files as stored (2 bytes a value; read-only).
//   Q8_0  quantized on load to ggml's 8-bit blocks (1.0625 bytes a value; read-only).
// The package and docs name them by to_string: "f32", "auto", "bf16", "q8_0".
enum class WeightsMode { F32, Auto, BF16, Q8_0 };
inline constexpr WeightsMode kWeightsModes[] = {WeightsMode::F32, WeightsMode::Auto, WeightsMode::BF16,
                                                WeightsMode::Q8_0};
const char* to_string(WeightsMode mode);
// One of kWeightsModes by its name; anything else is an Error (kInvalidArgument, field "weights").
Result<WeightsMode> parse_weights_mode(const std::string& text);

// How products with Q8_0 matrices take the activations (storage.hpp's Q8Activations;
// docs/pretrained.md, "Weights in memory"): F32 as they are; Int16 or Int8 rounded per block
// of 32 first, so decoding's GEMV multiplies in integers (kernels.hpp's round_row). Int16 and
// Int8 only with weights Q8_0. The package and docs name them by to_string: "f32", "int16",
// "int8" (the option q8Activations).
using attention::Q8Activations;  // storage.hpp: the kernels take the same modes
inline constexpr Q8Activations kQ8ActivationsModes[] = {Q8Activations::F32, Q8Activations::Int16, Q8Activations::Int8};
const char* to_string(Q8Activations mode);
// One of kQ8ActivationsModes by its name; anything else is an Error (kInvalidArgument, field
// "q8Activations").
Result<Q8Activations> parse_q8_activations(const std::string& text);

// A checkpoint file the loader reads in pieces.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Copies bytes [offset, offset + n) (within size()) to out.
  virtual void read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const = 0;
  // All the bytes, when the file is in memory already (then read() is never needed).
  virtual const std::uint8_t* data() const { return nullptr; }
};

struct LoadOptions {
  // The default: see docs/pretrained.md ("Weights in memory") for why.
  WeightsMode weights = WeightsMode::Auto;
  // Int16 or Int8 with weights other than Q8_0 is an Error (kInvalidArgument, field "q8Activations").
  Q8Activations q8_activations = Q8Activations::F32;
};

// Builds a model from checkpoint files given one at a time, so each file's bytes can
// be released once it is read (GPT-2 small is ~500 MB in F32): a file's header is
// checked whole and every tensor it names is mapped, checked and decoded straight into
// the model's parameters before add_file returns, each matrix straight into the
// storage LoadOptions::weights asks for (through a scratch block of at most 32 rows). finish() checks that every
// parameter was filled and hands the model over. A failed call leaves the loader
// unusable (the caller discards it); no half-built model ever escapes.
class CheckpointLoader {
 public:
  static Result<CheckpointLoader> create(const HubConfig& config, const LoadOptions& options = {});
  CheckpointLoader(CheckpointLoader&&) noexcept;
  CheckpointLoader& operator=(CheckpointLoader&&) noexcept;
  ~CheckpointLoader();

  // One whole .safetensors file (a checkpoint or one shard); `file_name` only for
  // messages. With a shard index, `expected` lists the tensors the index puts in this
  // file: the file must hold exactly those.
  Status add_file(const std::uint8_t* data, std::size_t size, const std::string& file_name,
                  const std::vector<std::string>* expected = nullptr);
  // The same from a file read piece by piece (the header, then each tensor, or each block
  // of 32 rows of a matrix held in 16 or 8 bits), so the whole file never needs to be in
  // the engine's memory next to the model.
  Status add_file(const ByteSource& file, const std::string& file_name,
                  const std::vector<std::string>* expected = nullptr);

  // The model, once every parameter is filled; else an Error naming the first missing
  // hub tensor (kMissingTensor) and how many are missing.
  Result<Transformer> finish();

  // Tensors read so far, skipped so far (by name, with the reason).
  int tensors_read() const;
  const std::vector<std::pair<std::string, std::string>>& skipped() const;

 private:
  struct State;
  explicit CheckpointLoader(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace attention::pretrained
