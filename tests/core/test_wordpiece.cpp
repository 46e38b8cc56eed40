// BERT's WordPiece tokenizer against Hugging Face's Rust tokenizers (the library
// behind BertTokenizerFast): tests/reference/wordpiece_reference.mjs ran it on a text
// table with three tokenizer.json files over one small vocabulary and wrote
// fixtures/wordpiece/expected.json. Every case must match exactly, loaded from the
// tokenizer.json and from vocab.txt with the same options.
//
// Where the references and HF's Python BertTokenizer (the slow one) differ, we follow
// the Rust tokenizers, as the golden file does:
//   - lowercasing is per code point: "ΑΣ" is "ασ" (Python's str.lower() and
//     transformers.js, which lowercase whole strings, give the final sigma "ας";
//     the golden file records transformers.js' ids for those cases);
//   - U+2028, U+2029 are whitespace (Python's _is_whitespace takes only Zs);
//   - unassigned code points (Cn) are kept, so they become [UNK] (Python's _is_control
//     takes every C* category and drops them);
//   - accents are stripped before lowercasing (Python lowercases first);
//   - an empty second text still gets its [SEP] ("[CLS] [SEP] [SEP]"; transformers.js
//     drops an empty pair);
//   - decode cleans up token by token (see wordpiece_tokenizer.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "attention/wordpiece_tokenizer.hpp"

using attention::WordPieceOptions;
using attention::WordPieceTokenizer;
using Json = nlohmann::json;

namespace {

const std::string kDir = std::string(ATTENTION_FIXTURE_DIR) + "/wordpiece/";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string vocab_txt() { return read_file(kDir + "vocab.txt"); }

WordPieceTokenizer uncased() {
  auto t = WordPieceTokenizer::from_vocab_txt(vocab_txt());
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error());
  return std::move(t).value();
}

std::vector<int> ids_of(const WordPieceTokenizer& t, const std::string& text) {
  auto ids = t.encode(text);
  EXPECT_TRUE(ids.ok()) << (ids.ok() ? "" : ids.error());
  return ids.ok() ? ids.value() : std::vector<int>{};
}

std::vector<std::string> tokens_of(const WordPieceTokenizer& t, const std::string& text) {
  auto p = t.pieces(ids_of(t, text));
  return p.ok() ? p.value() : std::vector<std::string>{"<error>"};
}

// --- the golden file ---

class Golden : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string text = read_file(kDir + "expected.json");
    golden_ = Json::parse(text, nullptr, false);
  }
  static Json golden_;
};
Json Golden::golden_;

std::vector<int> int_list(const Json& j) { return j.get<std::vector<int>>(); }

void check_cases(const WordPieceTokenizer& t, const std::string& config, const Json& cases, int& checked) {
  for (const Json& c : cases) {
    if (c["config"] != config) continue;
    const std::string text = c["text"];
    SCOPED_TRACE(config + ": '" + text + "'" +
                 (c.contains("text_b") ? " + '" + c["text_b"].get<std::string>() + "'" : ""));
    std::optional<std::string> text_b;
    if (c.contains("text_b")) text_b = c["text_b"].get<std::string>();
    if (!text_b) {
      auto ids = t.encode(text);
      ASSERT_TRUE(ids.ok()) << ids.error();
      EXPECT_EQ(ids.value(), int_list(c["ids"]));
      auto pieces = t.pieces(ids.value());
      ASSERT_TRUE(pieces.ok()) << pieces.error();
      EXPECT_EQ(pieces.value(), c["tokens"].get<std::vector<std::string>>());
    }
    auto model = text_b ? t.encode_for_model(text, std::string_view(*text_b)) : t.encode_for_model(text);
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ(model.value().ids, int_list(c["model_ids"]));
    EXPECT_EQ(model.value().token_type_ids, int_list(c["type_ids"]));
    auto decoded = t.decode(model.value().ids);
    ASSERT_TRUE(decoded.ok()) << decoded.error();
    EXPECT_EQ(decoded.value(), c["decoded"].get<std::string>());
    auto skipped = t.decode(model.value().ids, /*skip_special_tokens=*/true);
    ASSERT_TRUE(skipped.ok()) << skipped.error();
    EXPECT_EQ(skipped.value(), c["decoded_skip"].get<std::string>());
    ++checked;
  }
}

TEST_F(Golden, EveryCaseMatchesTheRustTokenizersFromTokenizerJson) {
  ASSERT_FALSE(golden_.is_discarded()) << "cannot read " << kDir << "expected.json";
  int checked = 0;
  for (const auto& [name, config] : golden_["configs"].items()) {
    auto t = WordPieceTokenizer::from_tokenizer_json(read_file(kDir + config["tokenizer_json"].get<std::string>()));
    ASSERT_TRUE(t.ok()) << name << ": " << t.error();
    check_cases(t.value(), name, golden_["cases"], checked);
  }
  EXPECT_GE(checked, 300);
}

TEST_F(Golden, EveryCaseMatchesFromVocabTxtWithTheSameOptions) {
  ASSERT_FALSE(golden_.is_discarded());
  int checked = 0;
  for (const auto& [name, config] : golden_["configs"].items()) {
    WordPieceOptions o;
    o.lowercase = config["lowercase"];
    if (!config["strip_accents"].is_null()) o.strip_accents = config["strip_accents"].get<bool>();
    o.tokenize_chinese_chars = config["tokenize_chinese_chars"];
    auto t = WordPieceTokenizer::from_vocab_txt(vocab_txt(), o);
    ASSERT_TRUE(t.ok()) << name << ": " << t.error();
    check_cases(t.value(), name, golden_["cases"], checked);
  }
  EXPECT_GE(checked, 300);
}

TEST_F(Golden, TheTextTableCoversWhatItShould) {
  ASSERT_FALSE(golden_.is_discarded());
  std::map<std::string, int> per_config;
  for (const Json& c : golden_["cases"]) ++per_config[c["config"].get<std::string>()];
  EXPECT_EQ(per_config.size(), 3u);
  for (const auto& [name, count] : per_config) EXPECT_GE(count, 60) << name;
}

// --- behaviour, on the fixture vocabulary ---

TEST(WordPiece, GreedyLongestMatchWithContinuationPieces) {
  const WordPieceTokenizer t = uncased();
  EXPECT_EQ(tokens_of(t, "unaffable playing"), (std::vector<std::string>{"un", "##aff", "##able", "play", "##ing"}));
  // No full segmentation ("hello" matches, "##€" is no token): the whole word is one
  // [UNK], not the pieces found so far.
  EXPECT_EQ(tokens_of(t, "hello\u20ac cat"), (std::vector<std::string>{"[UNK]", "cat"}));
}

TEST(WordPiece, WordLengthLimitCountsCodePoints) {
  const WordPieceTokenizer t = uncased();
  EXPECT_EQ(ids_of(t, std::string(100, 'a')).size(), 100u);  // a ##a ... (no "aa" token)
  EXPECT_EQ(tokens_of(t, std::string(101, 'a')), (std::vector<std::string>{"[UNK]"}));
  std::string accented;  // 100 'é': 200 bytes but 100 code points, so not [UNK] when cased
  for (int i = 0; i < 100; ++i) accented += "\xC3\xA9";
  WordPieceOptions cased;
  cased.lowercase = false;
  auto t2 = WordPieceTokenizer::from_vocab_txt(vocab_txt(), cased);
  ASSERT_TRUE(t2.ok());
  EXPECT_EQ(ids_of(t2.value(), accented).size(), 100u);
}

TEST(WordPiece, SpecialTokensAreMatchedInTheRawTextCaseSensitively) {
  const WordPieceTokenizer t = uncased();
  EXPECT_EQ(tokens_of(t, "a[MASK]b"), (std::vector<std::string>{"a", "[MASK]", "b"}));
  EXPECT_EQ(tokens_of(t, "[mask]"), (std::vector<std::string>{"[", "mask", "]"}));
  EXPECT_EQ(ids_of(t, "[UNK]"), std::vector<int>{t.unk_id()});
}

TEST(WordPiece, ModelInputForOneTextAndAPair) {
  const WordPieceTokenizer t = uncased();
  auto one = t.encode_for_model("hello");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one.value().ids, (std::vector<int>{*t.cls_id(), *t.id_of("hello"), *t.sep_id()}));
  EXPECT_EQ(one.value().token_type_ids, (std::vector<int>{0, 0, 0}));
  auto two = t.encode_for_model("hello", std::string_view("world"));
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two.value().token_type_ids, (std::vector<int>{0, 0, 0, 1, 1}));
}

TEST(WordPiece, SpecialIdsAndLookups) {
  const WordPieceTokenizer t = uncased();
  EXPECT_EQ(t.id_of("[PAD]"), 0);
  EXPECT_EQ(t.unk_id(), 2);
  EXPECT_EQ(t.cls_id(), 3);
  EXPECT_EQ(t.sep_id(), 4);
  EXPECT_EQ(t.mask_id(), 5);
  EXPECT_EQ(t.pad_id(), 0);
  EXPECT_FALSE(t.id_of("nope").has_value());
  EXPECT_EQ(t.vocab_size(), 349);
}

TEST(WordPiece, DecodeGluesPiecesAndRefusesUnknownIds) {
  const WordPieceTokenizer t = uncased();
  auto text = t.decode(ids_of(t, "unaffable, cat!"));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text.value(), "unaffable, cat!");
  auto bad = t.decode({0, 100000});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error_value().code, "out_of_range");
  EXPECT_FALSE(t.pieces({-1}).ok());
}

TEST(WordPiece, InvalidUtf8AndOversizedTextAreErrors) {
  const WordPieceTokenizer t = uncased();
  auto bad = t.encode("ok \xC3\x28");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error_value().code, "invalid_argument");
  EXPECT_NE(bad.error().find("byte 3"), std::string::npos) << bad.error();
  EXPECT_FALSE(t.encode_for_model("ok", std::string_view("\xFF")).ok());
  auto big = t.encode(std::string(WordPieceTokenizer::kMaxTextBytes + 1, 'a'));
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error_value().code, "limit_exceeded");
}

TEST(WordPiece, HostileTextsFinish) {
  const WordPieceTokenizer t = uncased();
  // A million combining marks in reverse class order (a sort per run), a long word
  // and a long run of CJK ideographs, all within the limit.
  std::string marks = "a";
  for (int i = 0; i < 200000; ++i) marks += "\xCC\x81\xCC\xA7";  // U+0301 (230), U+0327 (202)
  EXPECT_EQ(tokens_of(t, marks), (std::vector<std::string>{"a"}));
  EXPECT_EQ(ids_of(t, std::string(WordPieceTokenizer::kMaxTextBytes, 'x')).size(), 1u);
  std::string cjk;
  for (int i = 0; i < 100000; ++i) cjk += "\xE4\xB8\xAD";  // 中
  EXPECT_EQ(ids_of(t, cjk).size(), 100000u);
}

TEST(WordPiece, VocabTxtLineEndings) {
  auto t = WordPieceTokenizer::from_vocab_txt("[UNK]\r\n[CLS]\r\n[SEP]\r\nhi");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t.value().vocab_size(), 4);
  EXPECT_EQ(t.value().id_of("hi"), 3);
}

TEST(WordPiece, TokenizerConfigOptions) {
  auto o = WordPieceTokenizer::options_from_tokenizer_config(
      R"({"do_lower_case": false, "strip_accents": true, "tokenize_chinese_chars": false,
          "unk_token": {"content": "<unk>", "lstrip": false}, "mask_token": "<mask>", "model_max_length": 512})");
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_FALSE(o.value().lowercase);
  EXPECT_EQ(o.value().strip_accents, true);
  EXPECT_FALSE(o.value().tokenize_chinese_chars);
  EXPECT_EQ(o.value().unk_token, "<unk>");
  EXPECT_EQ(o.value().mask_token, "<mask>");
  auto bad = WordPieceTokenizer::options_from_tokenizer_config(R"({"do_lower_case": "yes"})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error_value().field, "do_lower_case");
}

// --- the error table: each bad file is a bad_file error that names its line or key ---

struct BadFile {
  const char* name;
  std::string text;
  const char* field;
  const char* message_part;
};

TEST(WordPiece, BadVocabTxt) {
  const std::vector<BadFile> table = {
      {"empty", "", "vocab", "empty"},
      {"no unk", "[CLS]\n[SEP]\nhi\n", "unk_token", "'[UNK]' is not in the vocabulary"},
      {"duplicate", "[UNK]\n[CLS]\n[SEP]\nhi\nhi\n", "vocab", "'hi' is listed twice (ids 3 and 4)"},
      {"blank line", "[UNK]\n\n[CLS]\n[SEP]\n", "vocab", "line 2 is empty"},
      {"no cls", "[UNK]\n[SEP]\n", "vocab", "lacks '[CLS]'"},
      {"invalid utf-8", "[UNK]\n[CLS]\n[SEP]\n\xC3\n", "vocab", "token 3 is not valid UTF-8"},
  };
  for (const BadFile& b : table) {
    auto t = WordPieceTokenizer::from_vocab_txt(b.text);
    ASSERT_FALSE(t.ok()) << b.name;
    EXPECT_EQ(t.error_value().code, "bad_file") << b.name;
    EXPECT_EQ(t.error_value().field, b.field) << b.name << ": " << t.error();
    EXPECT_NE(t.error().find(b.message_part), std::string::npos) << b.name << ": " << t.error();
  }
  WordPieceOptions zero;
  zero.max_input_chars_per_word = 0;
  EXPECT_FALSE(WordPieceTokenizer::from_vocab_txt("[UNK]\n[CLS]\n[SEP]\n", zero).ok());
}

// A minimal valid tokenizer.json, with `edit` applied to it.
std::string tokenizer_json(const std::function<void(Json&)>& edit) {
  Json j = Json::parse(R"({
    "added_tokens": [{"id": 0, "content": "[UNK]", "special": true, "normalized": false,
                      "lstrip": false, "rstrip": false, "single_word": false}],
    "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                   "strip_accents": null, "lowercase": true},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]},
    "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
              "max_input_chars_per_word": 100, "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hi": 3}}})");
  edit(j);
  return j.dump();
}

TEST(WordPiece, MinimalTokenizerJsonLoads) {
  auto t = WordPieceTokenizer::from_tokenizer_json(tokenizer_json([](Json&) {}));
  ASSERT_TRUE(t.ok()) << t.error();
  auto m = t.value().encode_for_model("Hi");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value().ids, (std::vector<int>{1, 3, 2}));
}

TEST(WordPiece, BadTokenizerJson) {
  struct Case {
    const char* name;
    std::string text;
    const char* field;
  };
  const std::vector<Case> table = {
      {"not json", "{", "tokenizer.json"},
      {"not an object", "[1]", "tokenizer.json"},
      {"too deep", std::string(100, '[') + std::string(100, ']'), "tokenizer.json"},
      {"no model", tokenizer_json([](Json& j) { j.erase("model"); }), "model"},
      {"bpe model", tokenizer_json([](Json& j) { j["model"]["type"] = "BPE"; }), "model.type"},
      {"no vocab", tokenizer_json([](Json& j) { j["model"].erase("vocab"); }), "model.vocab"},
      {"vocab array", tokenizer_json([](Json& j) { j["model"]["vocab"] = Json::array(); }), "model.vocab"},
      {"empty vocab", tokenizer_json([](Json& j) {
         j["model"]["vocab"] = Json::object();
         j["added_tokens"] = Json::array();
       }),
       "vocab"},
      {"string id", tokenizer_json([](Json& j) { j["model"]["vocab"]["hi"] = "3"; }), "model.vocab"},
      {"id gap", tokenizer_json([](Json& j) { j["model"]["vocab"]["hi"] = 7; }), "model.vocab"},
      {"shared id", tokenizer_json([](Json& j) { j["model"]["vocab"]["hi"] = 2; }), "model.vocab"},
      {"missing unk", tokenizer_json([](Json& j) { j["model"]["unk_token"] = "<unk>"; }), "unk_token"},
      {"unk not a string", tokenizer_json([](Json& j) { j["model"]["unk_token"] = 5; }), "model.unk_token"},
      {"negative max chars", tokenizer_json([](Json& j) { j["model"]["max_input_chars_per_word"] = -1; }),
       "model.max_input_chars_per_word"},
      {"lowercase not bool", tokenizer_json([](Json& j) { j["normalizer"]["lowercase"] = 1; }), "normalizer.lowercase"},
      {"other normalizer", tokenizer_json([](Json& j) {
         j["normalizer"] = {{"type", "NFKC"}};
       }),
       "normalizer.type"},
      {"long sequence", tokenizer_json([](Json& j) {
         j["normalizer"] = {{"type", "Sequence"}, {"normalizers", {j["normalizer"], {{"type", "NFC"}}}}};
       }),
       "normalizer"},
      {"no pre-tokenizer", tokenizer_json([](Json& j) { j["pre_tokenizer"] = nullptr; }), "pre_tokenizer"},
      {"other pre-tokenizer", tokenizer_json([](Json& j) {
         j["pre_tokenizer"] = {{"type", "Whitespace"}};
       }),
       "pre_tokenizer.type"},
      {"roberta processing", tokenizer_json([](Json& j) { j["post_processor"]["type"] = "RobertaProcessing"; }),
       "post_processor.type"},
      {"bad cls", tokenizer_json([](Json& j) { j["post_processor"]["cls"] = "[CLS]"; }), "post_processor.cls"},
      {"cls id past vocab", tokenizer_json([](Json& j) {
         j["post_processor"]["cls"] = {"[CLS]", 99};
       }),
       "post_processor"},
      {"template unknown special", tokenizer_json([](Json& j) {
         j["post_processor"] =
             Json::parse(R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[X]", "type_id": 0}}],
                                               "pair": [], "special_tokens": {}})");
       }),
       "post_processor"},
      {"template bad sequence", tokenizer_json([](Json& j) {
         j["post_processor"] =
             Json::parse(R"({"type": "TemplateProcessing", "single": [{"Sequence": {"id": "C", "type_id": 0}}],
                                               "pair": [], "special_tokens": {}})");
       }),
       "post_processor.single"},
      {"bpe decoder", tokenizer_json([](Json& j) {
         j["decoder"] = {{"type", "BPEDecoder"}};
       }),
       "decoder.type"},
      {"added not array", tokenizer_json([](Json& j) { j["added_tokens"] = Json::object(); }), "added_tokens"},
      {"added without id", tokenizer_json([](Json& j) { j["added_tokens"][0].erase("id"); }), "added_tokens"},
      {"added wrong id", tokenizer_json([](Json& j) { j["added_tokens"][0]["id"] = 3; }), "added_tokens"},
      {"added single word", tokenizer_json([](Json& j) { j["added_tokens"][0]["single_word"] = true; }),
       "added_tokens[0].single_word"},
      {"added twice", tokenizer_json([](Json& j) { j["added_tokens"].push_back(j["added_tokens"][0]); }),
       "added_tokens"},
      {"added empty", tokenizer_json([](Json& j) {
         j["added_tokens"].push_back({{"id", 9}, {"content", ""}});
       }),
       "added_tokens"},
  };
  for (const Case& c : table) {
    auto t = WordPieceTokenizer::from_tokenizer_json(c.text);
    ASSERT_FALSE(t.ok()) << c.name;
    EXPECT_EQ(t.error_value().code, "bad_file") << c.name;
    EXPECT_EQ(t.error_value().field, c.field) << c.name << ": " << t.error();
    EXPECT_FALSE(t.error().empty());
  }
}

TEST(WordPiece, TokenizerJsonOptionalParts) {
  // No normalizer: nothing is cleaned, lowercased or split around ideographs.
  auto raw = WordPieceTokenizer::from_tokenizer_json(tokenizer_json([](Json& j) { j["normalizer"] = nullptr; }));
  ASSERT_TRUE(raw.ok()) << raw.error();
  EXPECT_EQ(ids_of(raw.value(), "Hi hi"), (std::vector<int>{0, 3}));
  // No decoder: tokens joined by spaces, "##" kept.
  auto plain = WordPieceTokenizer::from_tokenizer_json(tokenizer_json([](Json& j) {
    j["decoder"] = nullptr;
    j["model"]["vocab"]["##i"] = 4;
    j["model"]["vocab"]["h"] = 5;
  }));
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_EQ(plain.value().decode({5, 4}).value(), "h ##i");
  // An added token past the vocabulary, matched in the normalized text, with rstrip.
  auto added = WordPieceTokenizer::from_tokenizer_json(tokenizer_json([](Json& j) {
    j["added_tokens"].push_back(
        {{"id", 10}, {"content", "<X>"}, {"special", false}, {"normalized", true}, {"rstrip", true}});
  }));
  ASSERT_TRUE(added.ok()) << added.error();
  EXPECT_EQ(ids_of(added.value(), "HI<X>  hi"), (std::vector<int>{3, 10, 3}));
  EXPECT_EQ(added.value().pieces({10}).value(), std::vector<std::string>{"<X>"});
  EXPECT_EQ(added.value().id_of("<X>"), 10);
  // A Sequence holding only the BertNormalizer / BertPreTokenizer.
  auto wrapped = WordPieceTokenizer::from_tokenizer_json(tokenizer_json([](Json& j) {
    j["normalizer"] = {{"type", "Sequence"}, {"normalizers", {j["normalizer"]}}};
    j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {j["pre_tokenizer"]}}};
  }));
  ASSERT_TRUE(wrapped.ok()) << wrapped.error();
}

}  // namespace
