// Command-line view of a forward pass: prints every stage of the trace with its
// shape and first values, and the attention weights of head 0 as a table.
//   attention_trace [--mode encoder|decoder|cross] [--d-model N] [--heads N] [--layers N]
//                   [--seed N] [--preset random|identity|positional] [--no-scale]
//                   [--no-residual] [--no-positional] [--gelu] [--pre-ln]
//                   [--source "text"]... [--json] "text" ["text" ...]
// --json prints the whole trace as JSON instead (-inf as null), which the wasm
// tests compare against the engine's own trace.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attention/model.hpp"

using namespace attention;

namespace {

bool parse_int(const char* text, int& out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (!*text || *end || v < -1000000 || v > 1000000) return false;
  out = static_cast<int>(v);
  return true;
}

void print_weights(const Trace& trace, const Stage& stage) {
  const Tensor& w = stage.tensor;  // (B, H, Sq, Sk)
  const int sq = w.shape[2], sk = w.shape[3];
  const auto& rows = stage.name.rfind("decoder.", 0) == 0 || trace.source_tokens.empty() ? trace.tokens[0]
                                                                                          : trace.source_tokens[0];
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

void print_string(const std::string& text) {
  std::putchar('"');
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') std::printf("\\%c", c);
    else if (c < 0x20) std::printf("\\u%04x", c);
    else std::putchar(c);
  }
  std::putchar('"');
}

void print_token_lists(const std::vector<std::vector<std::string>>& lists) {
  std::putchar('[');
  for (std::size_t b = 0; b < lists.size(); ++b) {
    std::printf(b ? ",[" : "[");
    for (std::size_t i = 0; i < lists[b].size(); ++i) {
      if (i) std::putchar(',');
      print_string(lists[b][i]);
    }
    std::putchar(']');
  }
  std::putchar(']');
}

void print_json(const Trace& trace) {
  std::printf("{\"tokens\":");
  print_token_lists(trace.tokens);
  std::printf(",\"sourceTokens\":");
  print_token_lists(trace.source_tokens);
  std::printf(",\"stages\":[");
  for (std::size_t i = 0; i < trace.stages.size(); ++i) {
    const Stage& s = trace.stages[i];
    std::printf("%s{\"layer\":%d,\"name\":", i ? "," : "", s.layer);
    print_string(s.name);
    std::printf(",\"axes\":[");
    for (std::size_t a = 0; a < s.tensor.axes.size(); ++a) {
      if (a) std::putchar(',');
      print_string(s.tensor.axes[a]);
    }
    std::printf("],\"shape\":[");
    for (std::size_t a = 0; a < s.tensor.shape.size(); ++a) std::printf("%s%d", a ? "," : "", s.tensor.shape[a]);
    std::printf("],\"data\":[");
    for (std::size_t k = 0; k < s.tensor.size(); ++k) {
      const float v = s.tensor.data[k];
      if (std::isfinite(v)) std::printf("%s%.9g", k ? "," : "", v);
      else std::printf("%snull", k ? "," : "");
    }
    std::printf("]}");
  }
  std::printf("]}\n");
}

}  // namespace

int main(int argc, char** argv) {
  ModelConfig config;
  std::vector<std::string> texts, sources;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    int* target = arg == "--d-model" ? &config.d_model : arg == "--heads" ? &config.heads
                : arg == "--layers" ? &config.layers : nullptr;
    if (target && has_value) {
      if (!parse_int(argv[++i], *target)) { std::fprintf(stderr, "%s needs a whole number\n", arg.c_str()); return 2; }
    } else if (arg == "--seed" && has_value) {
      config.seed = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--mode" && has_value) {
      const std::string m = argv[++i];
      config.mode = m == "decoder" ? Mode::Decoder : m == "cross" ? Mode::Cross : Mode::Encoder;
      if (m != "encoder" && m != "decoder" && m != "cross") { std::fprintf(stderr, "unknown mode %s\n", m.c_str()); return 2; }
    } else if (arg == "--preset" && has_value) {
      const std::string p = argv[++i];
      config.preset = p == "identity" ? Preset::Identity : p == "positional" ? Preset::Positional : Preset::Random;
      if (p != "random" && p != "identity" && p != "positional") { std::fprintf(stderr, "unknown preset %s\n", p.c_str()); return 2; }
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--no-scale") {
      config.scale = false;
    } else if (arg == "--no-residual") {
      config.residual = false;
    } else if (arg == "--no-positional") {
      config.positional = false;
    } else if (arg == "--gelu") {
      config.activation = Activation::GELU;
    } else if (arg == "--pre-ln") {
      config.norm = NormPlacement::Pre;
    } else if (arg == "--source" && has_value) {
      sources.emplace_back(argv[++i]);
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "unknown option %s (see the comment at the top of attention_trace.cpp)\n", arg.c_str());
      return 2;
    } else {
      texts.push_back(arg);
    }
  }
  if (texts.empty()) texts = {"the cat sat on the mat", "a dog barked"};
  if (config.mode == Mode::Cross && sources.empty()) sources.assign(texts.size(), "le chat est assis sur le tapis");

  Result<Trace> result = run_model(config, texts, sources);
  if (!result) {
    std::fprintf(stderr, "error: %s\n", result.error().c_str());
    return 1;
  }
  const Trace& trace = result.value();
  if (json) {
    print_json(trace);
    return 0;
  }
  std::printf("mode %s, d_model %d, heads %d (d_k %d), layers %d, preset %s\n", to_string(config.mode),
              config.d_model, config.heads, config.head_dim(), config.layers, to_string(config.preset));
  for (std::size_t b = 0; b < trace.tokens.size(); ++b) {
    std::printf("sequence %zu:", b);
    for (const auto& t : trace.tokens[b]) std::printf(" [%s]", t.c_str());
    std::printf("\n");
  }
  for (const Stage& stage : trace.stages) {
    std::printf("layer %2d  %-34s %-28s", stage.layer, stage.name.c_str(), stage.tensor.describe().c_str());
    for (std::size_t i = 0; i < stage.tensor.size() && i < 4; ++i) std::printf(" %9.4f", stage.tensor.data[i]);
    std::printf("\n");
    if (stage.name.size() >= 8 && stage.name.compare(stage.name.size() - 8, 8, ".weights") == 0 && stage.layer == 0)
      print_weights(trace, stage);
  }
  return 0;
}
