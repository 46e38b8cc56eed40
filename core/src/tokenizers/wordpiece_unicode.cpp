#include "src/tokenizers/wordpiece_unicode.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "src/tokenizers/unicode_classes.hpp"

namespace attention::tokenizers {

namespace {

struct CodeRange {
  char32_t first;
  char32_t last;
};
struct ClassRange {
  char32_t first;
  char32_t last;
  std::uint8_t combining_class;
};
struct Decomposition {
  char32_t code_point;
  std::uint16_t at;     // into kDecompositionPool
  std::uint8_t length;  // code points
};
struct CaseRun {  // first, first + step, ... last each map to itself + delta
  char32_t first;
  char32_t last;
  std::uint8_t step;
  std::int32_t delta;
};

#include "src/tokenizers/wordpiece_unicode_tables.inc"

template <class Range, std::size_t N>
const Range* find_range(const Range (&ranges)[N], char32_t c) {
  // The first range that ends at or after c; c is in it if it also starts at or before c.
  const Range* it = std::lower_bound(std::begin(ranges), std::end(ranges), c,
                                     [](const Range& r, char32_t value) { return r.last < value; });
  return it != std::end(ranges) && it->first <= c ? it : nullptr;
}

// Hangul syllables decompose by arithmetic (Unicode section 3.12).
constexpr char32_t kHangulBase = 0xAC00, kJamoL = 0x1100, kJamoV = 0x1161, kJamoT = 0x11A7;
constexpr int kVCount = 21, kTCount = 28, kSyllables = 19 * kVCount * kTCount;

int combining_class(char32_t c) {
  const ClassRange* r = find_range(kCombiningClasses, c);
  return r ? r->combining_class : 0;
}

}  // namespace

bool is_bert_control(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  return find_range(kOtherRanges, c) != nullptr;
}

bool is_bert_whitespace(char32_t c) { return is_space(c); }

bool is_bert_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  return c >= 0x80 && find_range(kPunctuationRanges, c) != nullptr;
}

bool is_cjk_ideograph(char32_t c) {
  // The ranges BERT's _is_chinese_char lists, written out as it does.
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_nonspacing_mark(char32_t c) { return c >= 0x300 && find_range(kNonspacingRanges, c) != nullptr; }

void append_lowercase(std::u32string& out, char32_t c) {
  if (c < 0x80) {
    out += (c >= 'A' && c <= 'Z') ? c + 32 : c;
    return;
  }
  if (c == 0x130) {  // 'İ' -> "i̇", the one code point whose lowercase is two
    out += U'i';
    out += char32_t{0x307};
    return;
  }
  const CaseRun* run = find_range(kLowercaseRuns, c);
  if (run && (c - run->first) % run->step == 0) {
    out += static_cast<char32_t>(static_cast<std::int64_t>(c) + run->delta);
    return;
  }
  out += c;
}

std::u32string nfd(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    if (c >= kHangulBase && c < kHangulBase + kSyllables) {
      const int s = static_cast<int>(c - kHangulBase);
      out += kJamoL + s / (kVCount * kTCount);
      out += kJamoV + (s % (kVCount * kTCount)) / kTCount;
      if (s % kTCount != 0) out += kJamoT + s % kTCount;
      continue;
    }
    const auto* d = std::lower_bound(std::begin(kDecompositions), std::end(kDecompositions), c,
                                     [](const Decomposition& e, char32_t value) { return e.code_point < value; });
    if (d != std::end(kDecompositions) && d->code_point == c)
      out.append(kDecompositionPool + d->at, kDecompositionPool + d->at + d->length);
    else
      out += c;
  }
  // Canonical ordering: each run of code points of non-zero combining class is
  // sorted by class, keeping the order of equal classes (a stable sort, so a hostile
  // run of a million marks costs n log n, not n^2).
  for (std::size_t i = 0; i < out.size();) {
    if (combining_class(out[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < out.size() && combining_class(out[end]) != 0) ++end;
    if (end - i > 1)
      std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(end),
                       [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    i = end;
  }
  return out;
}

}  // namespace attention::tokenizers
