#include "attention/generation.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace attention {

using error_code::kInvalidArgument;
using error_code::kLimitExceeded;
using error_code::kOutOfRange;

namespace {

Status check_tokens(const std::vector<int>& ids, int vocab, const char* field) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= vocab)
      return Error{std::string(field) + "[" + std::to_string(i) + "] is " + std::to_string(ids[i]) +
                       ", outside the vocabulary 0.." + std::to_string(vocab - 1),
                   kOutOfRange, field};
  return Ok{};
}

}  // namespace

Status Generation::feed(std::vector<int> ids, std::vector<Tensor>* attention) {
  ForwardInput in;
  in.batch = 1;
  in.seq = static_cast<int>(ids.size());
  in.ids = std::move(ids);
  if (Status st = model_->forward_cached(in, cache_, settings_.backend, forward_); !st) return st;
  logits_.swap(forward_.logits.data);  // the previous step's buffer is the next forward's
  if (attention) {
    // (1, H, P) -> (H, P): the forward's tensors taken over and renamed in place (their
    // axes' and shape's buffers reused: no allocation per layer).
    *attention = std::move(forward_.attention);
    for (Tensor& t : *attention) {
      const int heads = t.shape[1], positions = t.shape[2];
      t.axes = {"H", "P"};
      t.shape = {heads, positions};
    }
  }
  return Ok{};
}

Result<Generation> Generation::start(const Transformer& model, std::vector<int> prompt,
                                     const GenerationSettings& settings) {
  return begin(model, std::move(prompt), settings, true);
}

Result<Generation> Generation::begin(const Transformer& model, std::vector<int> prompt,
                                     const GenerationSettings& settings, bool check_budget) {
  const ModelSpec& s = model.spec();
  if (s.encoder_decoder() || !s.causal || s.head == OutputHead::None)
    return Error{"generation needs a causal model with an output head (a decoder-only model)", kInvalidArgument,
                 "model"};
  if (Status st = check_sampler_settings(settings.sampler); !st) return st.error_value();
  if (prompt.empty()) return Error{"the prompt has no tokens; give at least one id", kOutOfRange, "ids"};
  if (Status st = check_tokens(prompt, s.vocab_size, "ids"); !st) return st.error_value();
  if (Status st = check_tokens(settings.stop_ids, s.vocab_size, "stop"); !st) return st.error_value();
  const long long total = static_cast<long long>(prompt.size()) + settings.max_new_tokens;
  if (static_cast<long long>(prompt.size()) > s.max_seq)
    return Error{"the prompt has " + std::to_string(prompt.size()) + " tokens, beyond the model's context (maxSeq " +
                     std::to_string(s.max_seq) + ")",
                 kOutOfRange, "ids"};
  if (check_budget && (settings.max_new_tokens < 1 || total > s.max_seq))
    return Error{"maxNewTokens is " + std::to_string(settings.max_new_tokens) + "; with the prompt's " +
                     std::to_string(prompt.size()) + " tokens it must be 1.." +
                     std::to_string(std::max(0LL, s.max_seq - static_cast<long long>(prompt.size()))) +
                     " (the model's context is " + std::to_string(s.max_seq) + ")",
                 kOutOfRange, "maxNewTokens"};
  Generation g(model, settings);
  g.cache_ = model.new_cache(1);
  std::size_t bytes_per_position = 0;  // the global layers' slots of one position
  std::size_t window_bytes = 0;        // the window layers' rings, full
  for (const LayerKvCache& layer : g.cache_.layers) {
    if (layer.window == 0)
      bytes_per_position += layer.slot_bytes();
    else
      window_bytes += layer.slot_bytes() * static_cast<std::size_t>(layer.window);
  }
  // The budget's cache at its fullest must fit kMaxKvCacheBytes (a fork's is within its parent's,
  // checked when that began).
  const long long positions = std::min<long long>(s.max_seq, total);
  const double full_cache =
      static_cast<double>(bytes_per_position) * static_cast<double>(positions) + static_cast<double>(window_bytes);
  if (check_budget && full_cache > static_cast<double>(kMaxKvCacheBytes)) {
    const long long fits = bytes_per_position && kMaxKvCacheBytes > window_bytes
                               ? static_cast<long long>((kMaxKvCacheBytes - window_bytes) / bytes_per_position)
                               : 0;
    return Error{"the prompt's " + std::to_string(prompt.size()) + " tokens and maxNewTokens " +
                     std::to_string(settings.max_new_tokens) + " need a KV cache of " +
                     std::to_string(static_cast<long long>(full_cache / (1 << 20))) + " MiB; the limit is " +
                     std::to_string(kMaxKvCacheBytes >> 20) + " MiB (" + std::to_string(fits) +
                     " positions of this model)",
                 kLimitExceeded, "maxNewTokens"};
  }
  // Room for the whole budget at once, so the cache is never re-laid out (copied to a buffer twice
  // its size) in the middle of a generation; up to kMaxReservedCacheBytes: a larger budget (a long
  // generation of a big model, maybe stopped early) is not held before it is used, and beyond that
  // the cache grows by doubling. A prompt longer than that is held whole all the same (the prefill
  // appends it at once).
  const long long affordable =
      bytes_per_position ? static_cast<long long>(kMaxReservedCacheBytes / bytes_per_position) : total;
  const int budget = static_cast<int>(
      std::min<long long>({positions, std::max<long long>(affordable, static_cast<long long>(prompt.size()))}));
  for (LayerKvCache& layer : g.cache_.layers) layer.reserve(budget);
  g.prompt_length_ = static_cast<int>(prompt.size());
  if (Status st = g.feed(prompt, nullptr); !st) return st.error_value();
  g.tokens_ = std::move(prompt);
  return g;
}

Result<GenerationStep> Generation::step(int top_count) {
  if (done_) return Error{"this generation is finished (a stop token or maxNewTokens)", kInvalidArgument, "generation"};
  const auto started = std::chrono::steady_clock::now();
  const int vocab = model_->spec().vocab_size;
  // The distribution shown is the one drawn from; greedy shows the penalised logits' softmax
  // with the filters at temperature 1.
  SamplerSettings shown = settings_.sampler;
  if (shown.temperature == 0.0) shown.temperature = 1.0;
  sampling_distribution_and_entropy(logits_.data(), vocab, shown, tokens_, distribution_);
  GenerationStep out;
  out.token = sampler_.next(distribution_, logits_.data(), vocab, tokens_);
  out.position = static_cast<int>(tokens_.size());
  out.entropy = distribution_.entropy;
  out.candidates = top_candidates(distribution_, top_count);
  if (Status st = feed({out.token}, &out.attention); !st) return st.error_value();
  tokens_.push_back(out.token);
  const int generated = static_cast<int>(tokens_.size()) - prompt_length_;
  done_ = generated >= settings_.max_new_tokens ||
          std::find(settings_.stop_ids.begin(), settings_.stop_ids.end(), out.token) != settings_.stop_ids.end();
  out.done = done_;
  out.cache_bytes = cache_.bytes_per_layer();
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return out;
}

Result<Generation> Generation::fork(int position, int token) const {
  const int count = static_cast<int>(tokens_.size());
  if (position < 0 || position >= count)
    return Error{"position " + std::to_string(position) + " does not exist: the generation has positions 0.." +
                     std::to_string(count - 1),
                 kOutOfRange, "position"};
  if (Status st = check_tokens({token}, model_->spec().vocab_size, "token"); !st) return st.error_value();
  std::vector<int> prefix(tokens_.begin(), tokens_.begin() + position);
  prefix.push_back(token);
  // The budget of new tokens counts from the original prompt on, as in the parent (it may
  // be spent already: a fork at the last position of a finished generation is done).
  const int prompt = std::min(prompt_length_, position + 1);
  Result<Generation> g = begin(*model_, prefix, settings_, false);
  if (!g) return g;
  g.value().prompt_length_ = prompt;
  g.value().sampler_ = sampler_;
  g.value().done_ = static_cast<int>(g.value().tokens_.size()) - prompt >= settings_.max_new_tokens;
  return g;
}

}  // namespace attention
