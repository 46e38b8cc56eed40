// Command-line view of a forward pass of the playground model: prints every stage of
// the trace with its shape and first values, and the attention weights of head 0 as a
// table. Its options are the playground's settings (config.cpp), spelled in kebab case:
//   attention_trace [--mode encoder|decoder|cross] [--d-model N] [--heads N] [--layers N]
//                   [--ffn-dim N] [--seed N] [--preset random|identity|positional]
//                   [--activation relu|gelu|gelu_tanh] [--norm post|pre]
//                   [--scale|--no-scale] [--residual|--no-residual] [--positional|--no-positional]
//                   [--source "text"]... [--json] "text" ["text" ...]
//   attention_trace --schema     prints what the engine declares (settings, rules, stages, error codes)
// --json prints the whole trace as JSON instead (-inf as null), which the wasm tests
// compare against the engine's own trace.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attention/model.hpp"
#include "attention/trace_json.hpp"

using namespace attention;

namespace {

// "dModel" -> "d-model"
std::string kebab(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      out += '-';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

const SettingInfo* setting_for_option(const std::string& option) {
  for (const Field<ModelConfig>& f : playground_schema().fields)
    if (option == "--" + kebab(f.info.name)) return &f.info;
  return nullptr;
}

const SettingInfo* bool_setting_for_negation(const std::string& option) {
  for (const Field<ModelConfig>& f : playground_schema().fields)
    if (f.info.type == "bool" && option == "--no-" + kebab(f.info.name)) return &f.info;
  return nullptr;
}

// A command-line word as the JSON value the setting's type takes (checked by from_json).
Json option_value(const SettingInfo& info, const std::string& text) {
  if (info.type == "choice") return text;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end) return text;  // not a number: from_json reports it
  return v;
}

void print_weights(const Trace& trace, const Stage& stage) {
  const Tensor& w = stage.tensor;  // (B, H, Sq, Sk)
  const int sq = w.shape[2], sk = w.shape[3];
  const auto& rows =
      stage.name.rfind("decoder.", 0) == 0 || trace.source_tokens.empty() ? trace.tokens[0] : trace.source_tokens[0];
  const bool cross = stage.name.find("cross_attn") != std::string::npos;
  const auto& cols = cross ? trace.source_tokens[0] : rows;
  std::printf("    head 0 of sequence 0 (rows: queries, columns: keys)\n    %10s", "");
  for (int j = 0; j < sk; ++j) std::printf(" %7.7s", j < static_cast<int>(cols.size()) ? cols[j].c_str() : "<pad>");
  std::printf("\n");
  for (int i = 0; i < sq; ++i) {
    std::printf("    %10.10s", i < static_cast<int>(rows.size()) ? rows[i].c_str() : "<pad>");
    for (int j = 0; j < sk; ++j) std::printf(" %7.3f", w.at({0, 0, i, j}));
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Json settings = Json::object();
  std::vector<std::string> texts, sources;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--schema") {
      std::printf("%s\n", dump_json(engine_description(), 2).c_str());
      return 0;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--source" && has_value) {
      sources.emplace_back(argv[++i]);
    } else if (const SettingInfo* info = setting_for_option(arg)) {
      if (info->type == "bool")
        settings[info->name] = true;
      else if (has_value)
        settings[info->name] = option_value(*info, argv[++i]);
      else {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        return 2;
      }
    } else if (const SettingInfo* negated = bool_setting_for_negation(arg)) {
      settings[negated->name] = false;
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "unknown option %s (see the comment at the top of attention_trace.cpp)\n", arg.c_str());
      return 2;
    } else {
      texts.push_back(arg);
    }
  }
  Result<ModelConfig> parsed = from_json(playground_schema(), settings);
  if (!parsed) {
    std::fprintf(stderr, "error: %s\n", parsed.error().c_str());
    return 2;
  }
  const ModelConfig config = parsed.value();
  if (texts.empty()) texts = {"the cat sat on the mat", "a dog barked"};
  if (config.mode == Mode::Cross && sources.empty()) sources.assign(texts.size(), "le chat est assis sur le tapis");

  Result<Trace> result = run_model(config, texts, sources);
  if (!result) {
    std::fprintf(stderr, "error: %s\n", result.error().c_str());
    return 1;
  }
  const Trace& trace = result.value();
  if (json) {
    std::printf("%s\n", dump_json(trace_json(trace, true)).c_str());
    return 0;
  }
  std::printf("mode %s, d_model %d, heads %d (d_k %d), layers %d, preset %s\n", to_string(config.mode), config.d_model,
              config.heads, config.head_dim(), config.layers, to_string(config.preset));
  for (std::size_t b = 0; b < trace.tokens.size(); ++b) {
    std::printf("sequence %zu:", b);
    for (const auto& t : trace.tokens[b]) std::printf(" [%s]", t.c_str());
    std::printf("\n");
  }
  for (const Stage& stage : trace.stages) {
    std::printf("layer %2d  %-34s %-28s", stage.layer, stage.name.c_str(), stage.tensor.describe().c_str());
    for (std::size_t i = 0; i < stage.tensor.size() && i < 4; ++i) std::printf(" %9.4f", stage.tensor.data[i]);
    std::printf("\n");
    if (stage.id == StageId::Weights && stage.layer == 0) print_weights(trace, stage);
  }
  return 0;
}
