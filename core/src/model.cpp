#include "attention/model.hpp"

#include "attention/embeddings.hpp"
#include "attention/tokenizer.hpp"

namespace attention {

Model::Model(const ModelConfig& config) : config_(config), valid_(validate(config)) {
  if (!valid_) return;
  Result<Transformer> made = Transformer::create(playground_spec(config_));
  if (!made) {
    Error e = made.error_value();
    // The spec's words name encoderLayers, which the playground calls the cross mode.
    if (config_.mode == Mode::Cross && (e.field == "positions" || e.field == "window"))
      e.message = e.field == "positions"
                      ? "RoPE and ALiBi act in the self-attention of a single stack: pick the encoder or decoder "
                        "mode, or sinusoidal positions, for cross-attention"
                      : "a sliding window acts in the self-attention of a single stack: pick the encoder or decoder "
                        "mode, or window 0, for cross-attention";
    valid_ = e;
    return;
  }
  model_.emplace(std::move(made.value()));
  fill_preset(*model_, config_);
}

Result<Trace> run_model(const ModelConfig& config, const std::vector<std::string>& texts,
                        const std::vector<std::string>& source_texts) {
  return Model(config).run(texts, source_texts);
}

Result<Trace> Model::run(const std::vector<std::string>& texts, const std::vector<std::string>& source_texts) {
  if (!valid_) return valid_.error_value();
  Result<TokenBatch> target = tokenize_batch(texts);
  if (!target) return target.error_value();
  const bool cross = config_.mode == Mode::Cross;
  TokenBatch source;
  if (cross) {
    if (source_texts.size() != texts.size())
      return Error{"cross mode needs one source text per target text: got " + std::to_string(source_texts.size()) +
                       " source and " + std::to_string(texts.size()) + " target texts",
                   error_code::kShapeMismatch, "source"};
    Result<TokenBatch> s = tokenize_batch(source_texts);
    if (!s) return Error{"source " + s.error(), s.error_value().code, "source"};
    source = std::move(s.value());
  }

  // Ids over a vocabulary of these texts, and the embedding table for it.
  TextVocabulary vocabulary;
  const EncodedBatch target_ids = encode(target.value(), vocabulary);
  const EncodedBatch source_ids = cross ? encode(source, vocabulary) : EncodedBatch{};
  if (Status s = model_->set_embeddings(
          vocabulary.size(), embedding_table(vocabulary, config_.seed, config_.d_model, embedding_layout(config_)));
      !s)
    return s.error_value();

  ForwardInput input;
  input.batch = static_cast<int>(texts.size());
  input.ids = target_ids.ids;
  input.seq = target_ids.seq;
  input.lengths = target_ids.lengths;
  if (cross) {
    input.source_ids = source_ids.ids;
    input.source_seq = source_ids.seq;
    input.source_lengths = source_ids.lengths;
  }
  const RecordFilter everything;
  ForwardOptions options;
  options.backend = config_.backend;
  options.record = &everything;
  Result<ForwardOutput> out = model_->forward(input, options);
  if (!out) {
    // The ids are made here from the texts: an error about them (the working-memory limit)
    // is about the texts the caller gave.
    Error e = out.error_value();
    if (e.field == "ids") e.field = "texts";
    return e;
  }
  Trace trace = std::move(out.value().trace);
  trace.tokens = target_ids.pieces;
  if (cross) trace.source_tokens = source_ids.pieces;
  return trace;
}

}  // namespace attention
