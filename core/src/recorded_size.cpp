// How many floats the stages a RecordFilter keeps will hold: each stage of the registry
// the filter matches, in every layer and stack it would be recorded in, at the size its
// axis names give for this spec. Lets a forward that records a few stages of a large
// model (every layer's attention weights of a 28-layer model, say) pass the memory check
// that a forward recording everything would not.
#include <algorithm>
#include <string>

#include "attention/transformer.hpp"

namespace attention {

namespace {

// The size of one axis, by the letter scheme of the registry's axes (trace.hpp).
double axis_size(const std::string& axis, const ModelSpec& s, double batch, double sq, double sk) {
  if (axis == "B") return batch;
  if (axis == "S" || axis == "Sq") return sq;
  if (axis == "Sk") return sk;
  // E: the widest of the residual stream and the heads' concatenation (H d_h may exceed E).
  if (axis == "E") return std::max(s.d_model, s.heads * s.head_dim());
  if (axis == "H") return s.heads;
  if (axis == "d_k") return s.head_dim();
  if (axis == "F") return s.ffn_dim;
  if (axis == "V") return s.vocab_size;
  return std::max({batch, sq, sk, static_cast<double>(s.d_model), static_cast<double>(s.vocab_size)});
}

double stage_floats(const StageInfo& info, const ModelSpec& s, double batch, double sq, double sk) {
  double n = 1;
  std::string axes = info.axes;
  std::size_t start = 0;
  while (start <= axes.size()) {
    const std::size_t comma = std::min(axes.find(',', start), axes.size());
    n *= axis_size(axes.substr(start, comma - start), s, batch, sq, sk);
    start = comma + 1;
  }
  return n;
}

}  // namespace

double recorded_stage_floats(const ModelSpec& s, const RecordFilter& filter, int batch, int seq, int source_seq) {
  struct Stack {
    const char* name;
    int layers;
    double seq;
    bool cross;  // a decoder of an encoder–decoder: cross-attention too
  };
  std::vector<Stack> stacks;
  if (s.encoder_decoder()) {
    stacks.push_back({kEncoderStack, s.encoder_layers, static_cast<double>(source_seq), false});
    stacks.push_back({kDecoderStack, s.layers, static_cast<double>(seq), true});
  } else {
    stacks.push_back({s.causal ? kDecoderStack : kEncoderStack, s.layers, static_cast<double>(seq), false});
  }
  const double b = batch;
  double total = 0;
  for (const StageInfo& info : stage_registry()) {
    if (info.scope == StageScope::Model) {
      if (filter.matches(-1, info.name)) total += stage_floats(info, s, b, seq, seq);
      continue;
    }
    for (const Stack& stack : stacks) {
      const std::string prefix = std::string(stack.name) + ".";
      if (info.scope == StageScope::Stack) {
        if (filter.matches(-1, prefix + info.name)) total += stage_floats(info, s, b, stack.seq, stack.seq);
        continue;
      }
      for (int layer = 0; layer < stack.layers; ++layer) {
        if (info.scope == StageScope::Layer) {
          if (filter.matches(layer, prefix + info.name)) total += stage_floats(info, s, b, stack.seq, stack.seq);
          continue;
        }
        if (filter.matches(layer, prefix + kSelfAttention + "." + info.name))
          total += stage_floats(info, s, b, stack.seq, stack.seq);
        if (stack.cross && filter.matches(layer, prefix + kCrossAttention + "." + info.name))
          total += stage_floats(info, s, b, stack.seq, source_seq);
      }
    }
  }
  return total;
}

}  // namespace attention
