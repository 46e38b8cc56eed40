// Embind bindings of pretrained checkpoints and their tokenizers (loadPretrained in the
// TypeScript API, wasm/src/pretrained.ts): handles and copies only. Each checkpoint
// file stays on the JavaScript side and is copied into the heap a piece at a time (its
// header, a tensor, or 32 rows of a matrix held in 16 or 8 bits), so a model's peak on
// the heap is its parameters plus its largest piece.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attention/bpe_tokenizer.hpp"
#include "attention/pretrained.hpp"
#include "attention/trace_json.hpp"
#include "attention/wordpiece_tokenizer.hpp"
#include "js_values.hpp"
#include "model_handle.hpp"

using emscripten::val;
using namespace attention;
using attention::js::ModelHandle;

namespace {

val ints_to_js(const std::vector<int>& v) {
  val out = val::array();
  for (std::size_t i = 0; i < v.size(); ++i) out.set(i, v[i]);
  return out;
}
val strings_to_js(const std::vector<std::string>& v) {
  val out = val::array();
  for (std::size_t i = 0; i < v.size(); ++i) out.set(i, v[i]);
  return out;
}

// A Uint8Array on the JavaScript side, copied into the heap a piece at a time.
class JsBytes : public pretrained::ByteSource {
 public:
  explicit JsBytes(val bytes) : bytes_(std::move(bytes)), size_(bytes_["length"].as<double>()) {}
  std::uint64_t size() const override { return static_cast<std::uint64_t>(size_); }
  void read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const override {
    val(emscripten::typed_memory_view(n, out))
        .call<void>("set", bytes_.call<val>("subarray", static_cast<double>(offset), static_cast<double>(offset + n)));
  }

 private:
  val bytes_;
  double size_;
};

// config.json -> a loader that takes the checkpoint's files one by one.
class CheckpointLoaderHandle {
 public:
  // weights: a pretrained::kWeightsModes name, or "" for the default (pretrained::LoadOptions);
  // q8_activations: a pretrained::kQ8ActivationsModes name, or "" for the default.
  CheckpointLoaderHandle(std::string config_json, std::string weights, std::string q8_activations)
      : failure_(val::undefined()) {
    pretrained::LoadOptions options;
    if (!q8_activations.empty()) {
      Result<pretrained::Q8Activations> mode = pretrained::parse_q8_activations(q8_activations);
      if (!mode) {
        failure_ = js::error(mode.error_value());
        return;
      }
      options.q8_activations = mode.value();
    }
    if (!weights.empty()) {
      Result<pretrained::WeightsMode> mode = pretrained::parse_weights_mode(weights);
      if (!mode) {
        failure_ = js::error(mode.error_value());
        return;
      }
      options.weights = mode.value();
    }
    Result<pretrained::HubConfig> config = pretrained::read_config(config_json);
    if (!config) {
      failure_ = js::error(config.error_value());
      return;
    }
    config_ = config.value();
    Result<pretrained::CheckpointLoader> loader = pretrained::CheckpointLoader::create(config_.value(), options);
    if (!loader) {
      failure_ = js::error(loader.error_value());
      return;
    }
    loader_.emplace(std::move(loader).value());
  }
  val error() const { return failure_; }

  // { family, modelType, architecture, padTokenId, spec (JSON text) }
  val config() const {
    val out = val::object();
    if (!config_) return out;
    out.set("family", std::string(pretrained::to_string(config_->family)));
    out.set("modelType", config_->model_type);
    out.set("architecture", config_->architecture);
    out.set("padTokenId", config_->pad_token_id);
    out.set("spec", dump_json(to_json(model_spec_schema(), config_->spec)));
    return out;
  }

  // expected: the tensor names the shard index gives this file, or null.
  val add_file(val bytes, std::string file_name, val expected) {
    if (!loader_) return js::error("this loader has no model", error_code::kInvalidArgument, "config.json");
    std::vector<std::string> names;
    const bool indexed = !expected.isNull() && !expected.isUndefined();
    if (indexed) names = emscripten::vecFromJSArray<std::string>(expected);
    // Read in pieces from the JavaScript bytes: the file is never whole on the wasm heap.
    Status s = loader_->add_file(JsBytes(bytes), file_name, indexed ? &names : nullptr);
    return s ? val::undefined() : js::error(s.error_value());
  }

  // [[hub name, why it was skipped], ...]
  val skipped() const {
    val out = val::array();
    if (!loader_) return out;
    const auto& list = loader_->skipped();
    for (std::size_t i = 0; i < list.size(); ++i) out.set(i, strings_to_js({list[i].first, list[i].second}));
    return out;
  }

  // The model (owned by the caller), or null with error() saying why.
  ModelHandle* finish() {
    if (!loader_) return nullptr;
    Result<Transformer> model = loader_->finish();
    loader_.reset();
    if (!model) {
      failure_ = js::error(model.error_value());
      return nullptr;
    }
    return new ModelHandle(std::move(model).value());
  }

 private:
  std::optional<pretrained::HubConfig> config_;
  std::optional<pretrained::CheckpointLoader> loader_;
  val failure_;
};

// { weightMap: { tensor: file }, files: [file, ...] } or { error }.
val read_shard_index_js(std::string json_text) {
  Result<pretrained::ShardIndex> index = pretrained::read_shard_index(json_text);
  if (!index) return js::error(index.error_value());
  val map = val::object();
  for (const auto& [tensor, file] : index.value().weight_map) map.set(tensor, file);
  val out = val::object();
  out.set("weightMap", map);
  out.set("files", strings_to_js(index.value().files));
  return out;
}

// What both tokenizer handles share: the tokenizer or the error that stopped it.
template <class Tokenizer>
class TokenizerHandle {
 public:
  val error() const { return failure_; }
  int vocab_size() const { return tokenizer_ ? tokenizer_->vocab_size() : 0; }
  int id_of(std::string token) const {
    std::optional<int> id = tokenizer_ ? tokenizer_->id_of(token) : std::nullopt;
    return id ? *id : -1;
  }
  // { text } or { error }
  val decode(val ids) const {
    if (!tokenizer_) return failure_;
    Result<std::string> text = tokenizer_->decode(js::read_ints(ids));
    if (!text) return js::error(text.error_value());
    val out = val::object();
    out.set("text", text.value());
    return out;
  }

 protected:
  void keep(Result<Tokenizer> made) {
    if (made)
      tokenizer_.emplace(std::move(made).value());
    else
      failure_ = js::error(made.error_value());
  }
  // { ids, pieces[, tokenTypes] } or { error }
  val encoding(const Result<std::vector<int>>& ids, const std::vector<int>* types) const {
    if (!ids) return js::error(ids.error_value());
    Result<std::vector<std::string>> pieces = tokenizer_->pieces(ids.value());
    if (!pieces) return js::error(pieces.error_value());
    val out = val::object();
    out.set("ids", ints_to_js(ids.value()));
    out.set("pieces", strings_to_js(pieces.value()));
    if (types) out.set("tokenTypes", ints_to_js(*types));
    return out;
  }
  std::optional<Tokenizer> tokenizer_;
  val failure_ = val::undefined();
};

// GPT-2's byte-level BPE from tokenizer.json, or vocab.json + merges.txt.
class Gpt2BpeHandle : public TokenizerHandle<Gpt2BpeTokenizer> {
 public:
  Gpt2BpeHandle(std::string first, std::string merges, bool from_tokenizer_json) {
    keep(from_tokenizer_json ? Gpt2BpeTokenizer::from_tokenizer_json(first)
                             : Gpt2BpeTokenizer::from_vocab_and_merges(first, merges));
  }
  // GPT-2 has no pairs (the TypeScript side refuses one).
  val encode(std::string text, val /*pair*/) {
    if (!tokenizer_) return failure_;
    return encoding(tokenizer_->encode(text), nullptr);
  }
};

// BERT's WordPiece from tokenizer.json, or vocab.txt with tokenizer_config.json's options.
class WordPieceHandle : public TokenizerHandle<WordPieceTokenizer> {
 public:
  // from_tokenizer_json: `first` is tokenizer.json; else `first` is vocab.txt and
  // `config` tokenizer_config.json's text ("" = BertTokenizer's defaults).
  WordPieceHandle(std::string first, std::string config, bool from_tokenizer_json) {
    if (from_tokenizer_json) {
      keep(WordPieceTokenizer::from_tokenizer_json(first));
      return;
    }
    Result<WordPieceOptions> options = config.empty() ? Result<WordPieceOptions>(WordPieceOptions{})
                                                      : WordPieceTokenizer::options_from_tokenizer_config(config);
    if (options)
      keep(WordPieceTokenizer::from_vocab_txt(first, options.value()));
    else
      keep(options.error_value());
  }
  // [CLS] text [SEP] (pair [SEP]) with token types.
  val encode(std::string text, val pair) {
    if (!tokenizer_) return failure_;
    Result<WordPieceEncoding> encoded = pair.isNull() || pair.isUndefined()
                                            ? tokenizer_->encode_for_model(text)
                                            : tokenizer_->encode_for_model(text, pair.as<std::string>());
    if (!encoded) return js::error(encoded.error_value());
    return encoding(encoded.value().ids, &encoded.value().token_type_ids);
  }
};

}  // namespace

EMSCRIPTEN_BINDINGS(attention_pretrained) {
  emscripten::function("_readShardIndex", &read_shard_index_js);
  emscripten::class_<CheckpointLoaderHandle>("_CheckpointLoader")
      .constructor<std::string, std::string, std::string>()
      .function("error", &CheckpointLoaderHandle::error)
      .function("config", &CheckpointLoaderHandle::config)
      .function("addFile", &CheckpointLoaderHandle::add_file)
      .function("skipped", &CheckpointLoaderHandle::skipped)
      .function("finish", &CheckpointLoaderHandle::finish, emscripten::allow_raw_pointers());
  // The shared methods are bound once on each base; JS sees them on the handles.
  using Gpt2Base = TokenizerHandle<Gpt2BpeTokenizer>;
  using WordPieceBase = TokenizerHandle<WordPieceTokenizer>;
  emscripten::class_<Gpt2Base>("_Gpt2BpeBase")
      .function("error", &Gpt2Base::error)
      .function("vocabSize", &Gpt2Base::vocab_size)
      .function("idOf", &Gpt2Base::id_of)
      .function("decode", &Gpt2Base::decode);
  emscripten::class_<Gpt2BpeHandle, emscripten::base<Gpt2Base>>("_Gpt2Bpe")
      .constructor<std::string, std::string, bool>()
      .function("encode", &Gpt2BpeHandle::encode);
  emscripten::class_<WordPieceBase>("_WordPieceBase")
      .function("error", &WordPieceBase::error)
      .function("vocabSize", &WordPieceBase::vocab_size)
      .function("idOf", &WordPieceBase::id_of)
      .function("decode", &WordPieceBase::decode);
  emscripten::class_<WordPieceHandle, emscripten::base<WordPieceBase>>("_WordPiece")
      .constructor<std::string, std::string, bool>()
      .function("encode", &WordPieceHandle::encode);
}
