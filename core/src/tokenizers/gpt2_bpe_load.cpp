// Reading the GPT-2 tokenizer's files: encoder.json + vocab.bpe (OpenAI's release),
// vocab.json + merges.txt, or a Hugging Face tokenizer.json. Everything is checked
// here or in create(); a malformed file is an error naming the file and the line or
// key, never an exception.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "../untrusted_json.hpp"

#include "attention/bpe_tokenizer.hpp"

namespace attention {

namespace {

using Json = nlohmann::json;
using Vocab = std::vector<std::pair<std::string, int>>;
using Merges = std::vector<std::pair<std::string, std::string>>;

Error bad(const std::string& message, const std::string& field) { return Error(message, error_code::kBadFile, field); }

Result<Json> parse_json(std::string_view text, const std::string& field) { return parse_untrusted_json(text, field); }

Result<Vocab> vocab_from(const Json& object, const std::string& field) {
  if (!object.is_object()) return bad(field + " must be a JSON object of token -> id", field);
  Vocab vocab;
  vocab.reserve(object.size());
  for (const auto& [token, id] : object.items()) {
    if (!id.is_number_integer())
      return bad(field + ": the id of '" + token + "' is " + id.dump() + ", not an integer", field);
    const auto value = id.get<std::int64_t>();
    if (value < 0 || value >= Gpt2BpeTokenizer::kMaxTokenId)
      return bad(field + ": the id of '" + token + "' is " + std::to_string(value) + ", outside 0.." +
                     std::to_string(Gpt2BpeTokenizer::kMaxTokenId - 1),
                 field);
    vocab.emplace_back(token, static_cast<int>(value));
  }
  return vocab;
}

// "left right": exactly one space between two non-empty tokens (byte-level tokens
// never hold a space: it is 'Ġ').
bool split_merge(std::string_view line, std::pair<std::string, std::string>& merge) {
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0 || space + 1 == line.size()) return false;
  if (line.find(' ', space + 1) != std::string_view::npos) return false;
  merge = {std::string(line.substr(0, space)), std::string(line.substr(space + 1))};
  return true;
}

Result<Merges> merges_from_text(std::string_view text) {
  Merges merges;
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_number == 1 && line.rfind("#version", 0) == 0) continue;  // "#version: 0.2"
    if (line.empty()) continue;                                        // the final newline, or blank lines
    std::pair<std::string, std::string> merge;
    if (!split_merge(line, merge))
      return bad("merges line " + std::to_string(line_number) + " is '" + std::string(line) +
                     "', not two tokens separated by one space",
                 "merges");
    merges.push_back(std::move(merge));
  }
  return merges;
}

Result<Merges> merges_from_json(const Json& array) {
  if (!array.is_array()) return bad("tokenizer.json: model.merges must be an array", "model.merges");
  Merges merges;
  merges.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    const Json& entry = array[i];
    const std::string where = "tokenizer.json: model.merges[" + std::to_string(i) + "]";
    std::pair<std::string, std::string> merge;
    if (entry.is_string()) {
      if (!split_merge(entry.get_ref<const std::string&>(), merge))
        return bad(where + " is " + entry.dump() + ", not two tokens separated by one space", "model.merges");
    } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() && entry[1].is_string()) {
      merge = {entry[0].get<std::string>(), entry[1].get<std::string>()};
    } else {
      return bad(where + " must be a \"left right\" string or a [left, right] pair of strings", "model.merges");
    }
    merges.push_back(std::move(merge));
  }
  return merges;
}

}  // namespace

Result<Gpt2BpeTokenizer> Gpt2BpeTokenizer::from_vocab_and_merges(std::string_view vocab_json,
                                                                 std::string_view merges_text) {
  Result<Json> json = parse_json(vocab_json, "vocab");
  if (!json) return json.error_value();
  Result<Vocab> vocab = vocab_from(json.value(), "vocab");
  if (!vocab) return vocab.error_value();
  Result<Merges> merges = merges_from_text(merges_text);
  if (!merges) return merges.error_value();
  return create(vocab.value(), merges.value());
}

Result<Gpt2BpeTokenizer> Gpt2BpeTokenizer::from_tokenizer_json(std::string_view tokenizer_json) {
  Result<Json> json = parse_json(tokenizer_json, "tokenizer.json");
  if (!json) return json.error_value();
  const Json& root = json.value();
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object())
    return bad("tokenizer.json has no \"model\" object", "model");
  const Json& model = root["model"];
  if (model.contains("type") && model["type"] != "BPE")
    return bad("tokenizer.json: model.type is " + model["type"].dump() + ", not \"BPE\"", "model.type");
  if (!model.contains("vocab")) return bad("tokenizer.json has no model.vocab", "model.vocab");
  if (!model.contains("merges")) return bad("tokenizer.json has no model.merges", "model.merges");
  Result<Vocab> vocab = vocab_from(model["vocab"], "model.vocab");
  if (!vocab) return vocab.error_value();
  Result<Merges> merges = merges_from_json(model["merges"]);
  if (!merges) return merges.error_value();
  return create(vocab.value(), merges.value());
}

}  // namespace attention
