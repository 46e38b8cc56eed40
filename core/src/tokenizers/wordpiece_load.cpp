// Reading BERT's tokenizer files: vocab.txt (+ tokenizer_config.json's options) or a
// Hugging Face tokenizer.json. The file's structure is checked here, its tokens in
// WordPieceTokenizer::create(); anything malformed or unsupported is a bad_file error
// naming the line or key, never an exception.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "../untrusted_json.hpp"

#include "attention/wordpiece_tokenizer.hpp"

namespace attention {

namespace {

using Json = nlohmann::json;
using Parts = WordPieceTokenizer::Parts;
using TemplatePiece = WordPieceTokenizer::TemplatePiece;

Error bad(const std::string& message, const std::string& field) { return Error(message, error_code::kBadFile, field); }

Result<Json> parse_json(std::string_view text, const std::string& file) {
  Result<Json> json = parse_untrusted_json(text, file);
  if (json && !json.value().is_object()) return bad(file + " is not a JSON object", file);
  return json;
}

// Typed reads of optional keys: absent or null keeps `out`; another type is an error.
Status read_bool(const Json& object, const char* key, const std::string& path, bool& out) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Ok{};
  if (!it->is_boolean()) return bad(path + key + " is " + it->dump() + ", not true or false", path + key);
  out = it->get<bool>();
  return Ok{};
}

Status read_string(const Json& object, const char* key, const std::string& path, std::string& out) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Ok{};
  if (!it->is_string()) return bad(path + key + " is " + it->dump() + ", not a string", path + key);
  out = it->get<std::string>();
  return Ok{};
}

Status read_int(const Json& object, const char* key, const std::string& path, int& out) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Ok{};
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > (1 << 30))
    return bad(path + key + " is " + it->dump() + ", not an integer in 0..2^30", path + key);
  out = static_cast<int>(it->get<std::int64_t>());
  return Ok{};
}

std::string type_of(const Json& object) {
  const auto it = object.find("type");
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A component that is `type` itself or a Sequence holding just one of it (some
// converters wrap it so). Returns null if absent or null.
Result<const Json*> one_component(const Json& root, const char* key, const char* type, const char* list_key) {
  const auto it = root.find(key);
  if (it == root.end() || it->is_null()) return static_cast<const Json*>(nullptr);
  const std::string where = std::string(key);
  if (!it->is_object()) return bad(where + " is not an object", where);
  const Json* component = &*it;
  if (type_of(*component) == "Sequence") {
    const auto list = component->find(list_key);
    if (list == component->end() || !list->is_array() || list->size() != 1 || !(*list)[0].is_object())
      return bad(where + " is a Sequence; only one holding a single " + type + " is supported", where);
    component = &(*list)[0];
  }
  if (type_of(*component) != type)
    return bad(where + ".type is " + component->value("type", Json()).dump() + "; only " + type + " is supported",
               where + ".type");
  return component;
}

Status read_normalizer(const Json& root, WordPieceOptions& o) {
  Result<const Json*> n = one_component(root, "normalizer", "BertNormalizer", "normalizers");
  if (!n) return n.error_value();
  if (!n.value()) {  // no normalizer: the text goes to the pre-tokenizer as it is
    o.clean_text = o.tokenize_chinese_chars = o.lowercase = false;
    o.strip_accents = false;
    return Ok{};
  }
  const Json& j = *n.value();
  const std::string path = "normalizer.";
  o.clean_text = o.tokenize_chinese_chars = o.lowercase = true;
  for (const auto& [key, target] : {std::pair<const char*, bool*>{"clean_text", &o.clean_text},
                                    {"handle_chinese_chars", &o.tokenize_chinese_chars},
                                    {"lowercase", &o.lowercase}})
    if (Status s = read_bool(j, key, path, *target); !s) return s;
  o.strip_accents.reset();
  if (j.contains("strip_accents") && !j["strip_accents"].is_null()) {
    bool strip = false;
    if (Status s = read_bool(j, "strip_accents", path, strip); !s) return s;
    o.strip_accents = strip;
  }
  return Ok{};
}

Status read_model(const Json& root, Parts& parts) {
  const auto it = root.find("model");
  if (it == root.end() || !it->is_object()) return bad("tokenizer.json has no \"model\" object", "model");
  const Json& model = *it;
  if (model.contains("type") && model["type"] != "WordPiece")
    return bad("model.type is " + model["type"].dump() + ", not \"WordPiece\"", "model.type");
  WordPieceOptions& o = parts.options;
  const std::string path = "model.";
  if (Status s = read_string(model, "unk_token", path, o.unk_token); !s) return s;
  if (Status s = read_string(model, "continuing_subword_prefix", path, o.continuing_subword_prefix); !s) return s;
  if (Status s = read_int(model, "max_input_chars_per_word", path, o.max_input_chars_per_word); !s) return s;
  const auto vocab = model.find("vocab");
  if (vocab == model.end()) return bad("tokenizer.json has no model.vocab", "model.vocab");
  if (!vocab->is_object()) return bad("model.vocab must be a JSON object of token -> id", "model.vocab");
  if (vocab->size() > static_cast<std::size_t>(WordPieceTokenizer::kMaxTokenId))
    return bad("model.vocab has more than " + std::to_string(WordPieceTokenizer::kMaxTokenId) + " tokens",
               "model.vocab");
  parts.vocab.assign(vocab->size(), std::string());
  std::vector<bool> seen(vocab->size(), false);
  for (const auto& [token, id] : vocab->items()) {
    if (!id.is_number_integer())
      return bad("model.vocab: the id of '" + token + "' is " + id.dump() + ", not an integer", "model.vocab");
    const auto value = id.get<std::int64_t>();
    if (value < 0 || value >= static_cast<std::int64_t>(parts.vocab.size()))
      return bad("model.vocab: the id of '" + token + "' is " + std::to_string(value) + ", outside 0.." +
                     std::to_string(parts.vocab.size() - 1) + " (ids must be 0..size-1 without gaps)",
                 "model.vocab");
    if (seen[value])
      return bad("model.vocab: id " + std::to_string(value) + " is given to both '" + parts.vocab[value] + "' and '" +
                     token + "'",
                 "model.vocab");
    seen[value] = true;
    parts.vocab[value] = token;
  }
  return Ok{};
}

Status read_added_tokens(const Json& root, Parts& parts) {
  const auto it = root.find("added_tokens");
  if (it == root.end() || it->is_null()) return Ok{};
  if (!it->is_array()) return bad("added_tokens must be an array", "added_tokens");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& entry = (*it)[i];
    const std::string path = "added_tokens[" + std::to_string(i) + "].";
    if (!entry.is_object()) return bad("added_tokens[" + std::to_string(i) + "] is not an object", "added_tokens");
    WordPieceTokenizer::AddedToken a;
    if (!entry.contains("content") || !entry.contains("id"))
      return bad("added_tokens[" + std::to_string(i) + "] lacks \"content\" or \"id\"", "added_tokens");
    if (Status s = read_string(entry, "content", path, a.content); !s) return s;
    if (Status s = read_int(entry, "id", path, a.id); !s) return s;
    a.normalized = false;
    bool single_word = false;
    for (const auto& [key, target] : {std::pair<const char*, bool*>{"special", &a.special},
                                      {"normalized", &a.normalized},
                                      {"lstrip", &a.lstrip},
                                      {"rstrip", &a.rstrip},
                                      {"single_word", &single_word}})
      if (Status s = read_bool(entry, key, path, *target); !s) return s;
    if (single_word) return bad(path + "single_word is true, which is not supported", path + "single_word");
    parts.added.push_back(std::move(a));
  }
  return Ok{};
}

// The special token named in a template: its ids from the processor's special_tokens.
Result<std::vector<int>> template_ids(const Json& processor, const std::string& name, const std::string& where) {
  const auto specials = processor.find("special_tokens");
  if (specials == processor.end() || !specials->is_object() || !specials->contains(name))
    return bad(where + " names '" + name + "', which post_processor.special_tokens lacks", "post_processor");
  const Json& entry = (*specials)[name];
  if (!entry.is_object() || !entry.contains("ids") || !entry["ids"].is_array())
    return bad("post_processor.special_tokens['" + name + "'] has no \"ids\" array", "post_processor");
  std::vector<int> ids;
  for (const Json& id : entry["ids"]) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
        id.get<std::int64_t>() >= WordPieceTokenizer::kMaxTokenId)
      return bad("post_processor.special_tokens['" + name + "'].ids holds " + id.dump() + ", not a token id",
                 "post_processor");
    ids.push_back(static_cast<int>(id.get<std::int64_t>()));
  }
  return ids;
}

Result<std::vector<TemplatePiece>> read_template(const Json& processor, const char* key) {
  const std::string where = std::string("post_processor.") + key;
  const auto it = processor.find(key);
  if (it == processor.end() || !it->is_array()) return bad(where + " must be an array", where);
  std::vector<TemplatePiece> pieces;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& entry = (*it)[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    TemplatePiece piece;
    const Json* body = nullptr;
    if (entry.is_object() && entry.contains("Sequence"))
      body = &entry["Sequence"];
    else if (entry.is_object() && entry.contains("SpecialToken"))
      body = &entry["SpecialToken"];
    if (!body || !body->is_object() || !body->contains("id") || !(*body)["id"].is_string())
      return bad(at + " is neither {\"Sequence\": {\"id\": ...}} nor {\"SpecialToken\": {\"id\": ...}}", where);
    const std::string id = (*body)["id"].get<std::string>();
    if (Status s = read_int(*body, "type_id", at + ".", piece.type_id); !s) return s.error_value();
    if (entry.contains("Sequence")) {
      if (id != "A" && id != "B") return bad(at + ": a Sequence id is \"A\" or \"B\", not \"" + id + "\"", where);
      piece.sequence = id == "A" ? 0 : 1;
    } else {
      Result<std::vector<int>> ids = template_ids(processor, id, at);
      if (!ids) return ids.error_value();
      piece.ids = std::move(ids).value();
    }
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

// BertProcessing's ["[SEP]", 102]-style pairs.
Result<int> processing_id(const Json& processor, const char* key) {
  const std::string where = std::string("post_processor.") + key;
  const auto it = processor.find(key);
  if (it == processor.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_string() ||
      !(*it)[1].is_number_integer() || (*it)[1].get<std::int64_t>() < 0 ||
      (*it)[1].get<std::int64_t>() >= WordPieceTokenizer::kMaxTokenId)
    return bad(where + " must be a [token, id] pair", where);
  return static_cast<int>((*it)[1].get<std::int64_t>());
}

Status read_post_processor(const Json& root, Parts& parts) {
  const auto it = root.find("post_processor");
  if (it == root.end() || it->is_null()) return Ok{};
  if (!it->is_object()) return bad("post_processor is not an object", "post_processor");
  const std::string type = type_of(*it);
  if (type == "TemplateProcessing") {
    Result<std::vector<TemplatePiece>> single = read_template(*it, "single");
    if (!single) return single.error_value();
    Result<std::vector<TemplatePiece>> pair = read_template(*it, "pair");
    if (!pair) return pair.error_value();
    parts.single = std::move(single).value();
    parts.pair = std::move(pair).value();
    return Ok{};
  }
  if (type == "BertProcessing") {
    Result<int> cls = processing_id(*it, "cls");
    if (!cls) return cls.error_value();
    Result<int> sep = processing_id(*it, "sep");
    if (!sep) return sep.error_value();
    parts.single = std::vector<TemplatePiece>{{-1, {cls.value()}, 0}, {0, {}, 0}, {-1, {sep.value()}, 0}};
    parts.pair = std::vector<TemplatePiece>{
        {-1, {cls.value()}, 0}, {0, {}, 0}, {-1, {sep.value()}, 0}, {1, {}, 1}, {-1, {sep.value()}, 1}};
    return Ok{};
  }
  return bad("post_processor.type is " + it->value("type", Json()).dump() +
                 "; only TemplateProcessing and BertProcessing are supported",
             "post_processor.type");
}

Status read_decoder(const Json& root, Parts& parts) {
  const auto it = root.find("decoder");
  if (it == root.end() || it->is_null()) {
    parts.decoder_wordpiece = false;
    return Ok{};
  }
  if (!it->is_object() || type_of(*it) != "WordPiece")
    return bad("decoder.type is " + (it->is_object() ? it->value("type", Json()).dump() : it->dump()) +
                   "; only WordPiece is supported",
               "decoder.type");
  if (Status s = read_string(*it, "prefix", "decoder.", parts.decoder_prefix); !s) return s;
  return read_bool(*it, "cleanup", "decoder.", parts.decoder_cleanup);
}

}  // namespace

Result<WordPieceTokenizer> WordPieceTokenizer::from_vocab_txt(std::string_view text, const WordPieceOptions& options) {
  Parts parts;
  parts.options = options;
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty())
      return bad("vocab.txt line " + std::to_string(line_number) + " is empty (a token a line, none empty)", "vocab");
    parts.vocab.emplace_back(line);
  }
  // The special tokens the vocabulary has are matched whole in the raw text, as the
  // tokenizer.json converted from this file would say.
  for (const std::string* special :
       {&options.pad_token, &options.unk_token, &options.cls_token, &options.sep_token, &options.mask_token}) {
    const auto at = std::find(parts.vocab.begin(), parts.vocab.end(), *special);
    const bool listed =
        std::any_of(parts.added.begin(), parts.added.end(), [&](const AddedToken& a) { return a.content == *special; });
    if (at != parts.vocab.end() && !listed)
      parts.added.push_back({*special, static_cast<int>(at - parts.vocab.begin()), true, false, false, false});
  }
  Result<WordPieceTokenizer> t = create(std::move(parts));
  if (!t) {
    Error e = t.error_value();
    e.message = "vocab.txt: " + e.message;
    return e;
  }
  if (!t.value().cls_id() || !t.value().sep_id())
    return bad("vocab.txt lacks '" + options.cls_token + "' or '" + options.sep_token + "'", "vocab");
  return t;
}

Result<WordPieceTokenizer> WordPieceTokenizer::from_tokenizer_json(std::string_view tokenizer_json) {
  Result<Json> json = parse_json(tokenizer_json, "tokenizer.json");
  if (!json) return json.error_value();
  const Json& root = json.value();
  Parts parts;
  if (Status s = read_normalizer(root, parts.options); !s) return s.error_value();
  Result<const Json*> pre = one_component(root, "pre_tokenizer", "BertPreTokenizer", "pretokenizers");
  if (!pre) return pre.error_value();
  if (!pre.value()) return bad("tokenizer.json has no pre_tokenizer; BertPreTokenizer is needed", "pre_tokenizer");
  if (Status s = read_model(root, parts); !s) return s.error_value();
  if (Status s = read_added_tokens(root, parts); !s) return s.error_value();
  if (Status s = read_post_processor(root, parts); !s) return s.error_value();
  if (Status s = read_decoder(root, parts); !s) return s.error_value();
  Result<WordPieceTokenizer> t = create(std::move(parts));
  if (!t) {
    Error e = t.error_value();
    e.message = "tokenizer.json: " + e.message;
    return e;
  }
  return t;
}

Result<WordPieceOptions> WordPieceTokenizer::options_from_tokenizer_config(std::string_view config_json,
                                                                           WordPieceOptions base) {
  Result<Json> json = parse_json(config_json, "tokenizer_config.json");
  if (!json) return json.error_value();
  const Json& j = json.value();
  for (const auto& [key, target] : {std::pair<const char*, bool*>{"do_lower_case", &base.lowercase},
                                    {"tokenize_chinese_chars", &base.tokenize_chinese_chars}})
    if (Status s = read_bool(j, key, "", *target); !s) return s.error_value();
  if (j.contains("strip_accents")) {
    if (j["strip_accents"].is_null()) {
      base.strip_accents.reset();
    } else {
      bool strip = false;
      if (Status s = read_bool(j, "strip_accents", "", strip); !s) return s.error_value();
      base.strip_accents = strip;
    }
  }
  for (const auto& [key, target] : {std::pair<const char*, std::string*>{"unk_token", &base.unk_token},
                                    {"cls_token", &base.cls_token},
                                    {"sep_token", &base.sep_token},
                                    {"pad_token", &base.pad_token},
                                    {"mask_token", &base.mask_token}}) {
    // A token is a string or, in files saved by older transformers, an AddedToken
    // object {"content": ..., ...}.
    const auto it = j.find(key);
    if (it != j.end() && it->is_object()) {
      if (Status s = read_string(*it, "content", std::string(key) + ".", *target); !s) return s.error_value();
    } else if (Status s = read_string(j, key, "", *target); !s) {
      return s.error_value();
    }
  }
  return base;
}

}  // namespace attention
