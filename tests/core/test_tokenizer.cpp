#include "attention/tokenizer.hpp"

#include <gtest/gtest.h>

using namespace attention;
using Tokens = std::vector<std::string>;

namespace {
Tokens tokens_of(const std::string& text) {
  Result<Tokens> r = tokenize(text);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? r.value() : Tokens{};
}
}  // namespace

TEST(Tokenizer, WordsAndPunctuation) {
  EXPECT_EQ(tokens_of("The cat sat on the mat."), (Tokens{"The", "cat", "sat", "on", "the", "mat", "."}));
  EXPECT_EQ(tokens_of("  hello,world!!  "), (Tokens{"hello", ",", "world", "!", "!"}));
  EXPECT_EQ(tokens_of("don't stop"), (Tokens{"don't", "stop"}));
  EXPECT_EQ(tokens_of("'quoted'"), (Tokens{"'", "quoted", "'"}));
  EXPECT_EQ(tokens_of("state-of-the-art 3.14"), (Tokens{"state", "-", "of", "-", "the", "-", "art", "3", ".", "14"}));
  EXPECT_EQ(tokens_of("<img src=x onerror=alert(1)>"),
            (Tokens{"<", "img", "src", "=", "x", "onerror", "=", "alert", "(", "1", ")", ">"}));
}

TEST(Tokenizer, UnicodeText) {
  EXPECT_EQ(tokens_of("café naïve"), (Tokens{"café", "naïve"}));
  EXPECT_EQ(tokens_of("cafe\xCC\x81"), (Tokens{"cafe\xCC\x81"}));  // combining accent stays in the word
  EXPECT_EQ(tokens_of("猫が座った"),
            (Tokens{"猫", "が", "座", "った"}));  // ideographs stand alone, kana runs form words
  EXPECT_EQ(tokens_of("我爱你。"), (Tokens{"我", "爱", "你", "。"}));
  EXPECT_EQ(tokens_of("שלום עולם"), (Tokens{"שלום", "עולם"}));
  EXPECT_EQ(tokens_of("I ❤️ 🐈🐕"), (Tokens{"I", "❤️", "🐈", "🐕"}));
  EXPECT_EQ(tokens_of("👩‍💻 ok"), (Tokens{"👩‍💻", "ok"}));  // a ZWJ sequence is one token
  EXPECT_EQ(tokens_of("👍🏽"), (Tokens{"👍🏽"}));                 // skin tone modifier joins
  EXPECT_EQ(tokens_of("a\u200Bb"), (Tokens{"a", "b"}));                   // zero-width space separates
  EXPECT_EQ(tokens_of(std::string("a\0b", 3)), (Tokens{"a", "b"}));
  EXPECT_EQ(tokens_of("“quote” — dash…"), (Tokens{"“", "quote", "”", "—", "dash", "…"}));
}

TEST(Tokenizer, EmptyAndWhitespaceGiveNoTokens) {
  EXPECT_TRUE(tokens_of("").empty());
  EXPECT_TRUE(tokens_of(" \t\n\u00A0\u3000").empty());
}

TEST(Tokenizer, InvalidUtf8IsAnError) {
  for (const std::string bad : {std::string("ab\xFF"), std::string("\xC3"), std::string("\xED\xA0\x80"),
                                std::string("\xC0\xAF"), std::string("\xF4\x90\x80\x80")}) {
    Result<Tokens> r = tokenize(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().find("not valid UTF-8 at byte"), std::string::npos);
  }
}

TEST(Tokenizer, StatedMaximumLength) {
  std::string text;
  for (int i = 0; i < kMaxTokensPerText; ++i) text += "w ";
  EXPECT_EQ(tokens_of(text).size(), static_cast<std::size_t>(kMaxTokensPerText));
  Result<Tokens> r = tokenize(text + "one more");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("more than 128 tokens"), std::string::npos) << r.error();
  EXPECT_EQ(r.error_value().code, error_code::kLimitExceeded);
  EXPECT_EQ(r.error_value().field, "texts");
  Result<Tokens> huge = tokenize(std::string(100000, 'a'));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error(), "text is 100000 bytes long; the limit is 8192");
  EXPECT_EQ(huge.error_value().code, error_code::kLimitExceeded);
}

TEST(Tokenizer, BatchIsPaddedToTheLongest) {
  Result<TokenBatch> r = tokenize_batch({"the cat sat", "a dog", "hi"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().lengths, (std::vector<int>{3, 2, 1}));
  EXPECT_EQ(r.value().padded_length, 3);
  EXPECT_EQ(r.value().tokens[1], (Tokens{"a", "dog"}));
}

TEST(Tokenizer, BatchErrorsNameTheText) {
  EXPECT_EQ(tokenize_batch({}).error(), "no texts given: type at least one sentence");
  EXPECT_EQ(tokenize_batch({"", "  "}).error(), "the text is empty: type at least one word");
  EXPECT_NE(tokenize_batch({"ok", "bad \xFF"}).error().find("text 1: text is not valid UTF-8 at byte 4"),
            std::string::npos);
  EXPECT_NE(tokenize_batch(std::vector<std::string>(17, "x")).error().find("maximum batch is 16"), std::string::npos);
  // Codes and the field: the stated limits are limit_exceeded, the rest invalid_argument.
  const auto code_and_field = [](const Result<TokenBatch>& r) {
    return std::make_pair(r.error_value().code, r.error_value().field);
  };
  const std::pair<std::string, std::string> limit{error_code::kLimitExceeded, "texts"};
  const std::pair<std::string, std::string> invalid{error_code::kInvalidArgument, "texts"};
  EXPECT_EQ(code_and_field(tokenize_batch(std::vector<std::string>(17, "x"))), limit);
  EXPECT_EQ(code_and_field(tokenize_batch({"ok", std::string(9000, 'a')})), limit);
  std::string many;
  for (int i = 0; i < 129; ++i) many += "w ";
  EXPECT_EQ(code_and_field(tokenize_batch({"ok", many})), limit);
  EXPECT_EQ(code_and_field(tokenize_batch({})), invalid);
  EXPECT_EQ(code_and_field(tokenize_batch({"", "  "})), invalid);
  EXPECT_EQ(code_and_field(tokenize_batch({"ok", "bad \xFF"})), invalid);
}

TEST(Tokenizer, EmojiWithZwjAndSymbolsFromOtherBlocks) {
  EXPECT_EQ(tokens_of("I ❤️ 🐈‍⬛ 👍🏽"), (Tokens{"I", "❤️", "🐈‍⬛", "👍🏽"}));
  EXPECT_EQ(tokens_of("⌚⭐ok"), (Tokens{"⌚", "⭐", "ok"}));
}
