// The checkpoint loader (core/src/pretrained) on arbitrary bytes; see harnesses.hpp.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attention/pretrained.hpp"
#include "harnesses.hpp"

namespace attention::fuzz {

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

// Tiny configs of both families, so a fuzzed weights file has a model to fill.
const char* const kConfigs[] = {
    R"({"model_type": "gpt2", "vocab_size": 5, "n_positions": 4, "n_embd": 4, "n_layer": 1, "n_head": 2})",
    R"({"model_type": "bert", "architectures": ["BertForMaskedLM"], "vocab_size": 5, "hidden_size": 4,
        "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8, "max_position_embeddings": 4})",
};

void expect_error(const Error& e) {
  if (e.message.empty() || e.code.empty()) broken("an error without a message or code");
}

}  // namespace

void checkpoint(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  const std::uint8_t mode = data[0] % 4;
  const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode == 0) {  // config.json: a spec the engine validates, or an error naming a key
    Result<pretrained::HubConfig> c = pretrained::read_config(rest);
    if (!c) return expect_error(c.error_value());
    if (!validate(c.value().spec)) broken("read_config accepted an invalid spec");
    return;
  }
  if (mode == 1) {  // model.safetensors.index.json: plain file names only
    Result<pretrained::ShardIndex> index = pretrained::read_shard_index(rest);
    if (!index) return expect_error(index.error_value());
    for (const std::string& f : index.value().files)
      if (f.empty() || f.find('/') != std::string::npos || f == "..")
        broken("a shard name that is not a plain file name");
    return;
  }
  // a weights file for a tiny GPT-2 (mode 2) or BERT (mode 3)
  Result<pretrained::HubConfig> config = pretrained::read_config(kConfigs[mode - 2]);
  if (!config) broken("a built-in config was refused");
  // ... held as the file says, widened or quantized (the first byte's higher bits choose)
  const pretrained::WeightsMode weights = std::array{pretrained::WeightsMode::Auto, pretrained::WeightsMode::F32,
                                                     pretrained::WeightsMode::Q8_0}[data[0] / 4 % 3];
  Result<pretrained::CheckpointLoader> loader = pretrained::CheckpointLoader::create(config.value(), {weights});
  if (!loader) broken("a loader for a built-in config was refused");
  if (Status s = loader.value().add_file(data + 1, size - 1, "model.safetensors"); !s)
    return expect_error(s.error_value());
  Result<Transformer> model = loader.value().finish();
  if (!model) return expect_error(model.error_value());
  ForwardInput in;
  in.batch = 1;
  in.seq = 2;
  in.ids = {1, 3};
  Result<ForwardOutput> out = model.value().forward(in);
  if (!out) return expect_error(out.error_value());  // float32 overflow is an error, never inf
  for (float v : out.value().hidden.data)
    if (!std::isfinite(v)) broken("a loaded model gave a non-finite hidden state");
}

}  // namespace attention::fuzz
