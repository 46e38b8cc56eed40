#include "src/tokenizers/gpt2_pretokenize.hpp"

#include <cstddef>

#include "src/tokenizers/unicode_classes.hpp"

namespace attention::tokenizers {

namespace {

enum class Class { Letter, Number, Space, Other };

Class class_of(char32_t c) {
  if (is_letter(c)) return Class::Letter;
  if (is_number(c)) return Class::Number;
  if (is_space(c)) return Class::Space;
  return Class::Other;  // [^\s\p{L}\p{N}]: punctuation, symbols, marks, emoji, controls
}

struct CodePoint {
  std::size_t offset;  // byte offset in the text
  Class cls;
  char32_t value;
};

// GPT-2's contractions: ASCII apostrophe, lower case only (as in the original regex).
std::size_t contraction_length(std::string_view rest) {
  if (rest.size() < 2 || rest[0] != '\'') return 0;
  for (std::string_view suffix : {"re", "ve", "ll"})
    if (rest.substr(1, 2) == suffix) return 3;
  for (char c : {'s', 't', 'm', 'd'})
    if (rest[1] == c) return 2;
  return 0;
}

}  // namespace

std::vector<std::string_view> gpt2_pretokenize(std::string_view text) {
  std::vector<CodePoint> cps;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    std::size_t n = decode_utf8(text, i, c);
    if (n == 0) n = 1;  // not reached for valid text; keeps the loop finite regardless
    cps.push_back({i, class_of(c), c});
    i += n;
  }
  const std::size_t count = cps.size();
  auto offset = [&](std::size_t k) { return k < count ? cps[k].offset : text.size(); };
  // The end (in code points) of the run of class cls starting at k.
  auto run_end = [&](std::size_t k, Class cls) {
    while (k < count && cps[k].cls == cls) ++k;
    return k;
  };

  std::vector<std::string_view> pieces;
  std::size_t k = 0;
  while (k < count) {
    std::size_t end = k;
    // 's|'t|'re|'ve|'m|'ll|'d: apostrophe and letters are ASCII, so bytes = code points.
    if (const std::size_t len = contraction_length(text.substr(cps[k].offset, 3))) {
      end = k + len;
    } else {
      // ` ?X+` for X in \p{L}, \p{N}, [^\s\p{L}\p{N}]: an optional U+0020 then a run.
      const bool space = cps[k].value == U' ';
      const std::size_t head = space && k + 1 < count ? k + 1 : k;
      const Class cls = cps[head].cls;
      if (cls != Class::Space) {
        end = run_end(head, cls);
      } else {
        // \s+(?!\S): the whitespace run, less its last code point if a non-space
        // follows (that one then starts the next piece, usually as " word"); a run of
        // one before a non-space falls through to \s+ and stays whole.
        const std::size_t run = run_end(k, Class::Space);
        end = (run < count && run - k > 1) ? run - 1 : run;
      }
    }
    pieces.push_back(text.substr(offset(k), offset(end) - offset(k)));
    k = end;
  }
  return pieces;
}

}  // namespace attention::tokenizers
