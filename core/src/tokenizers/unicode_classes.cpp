#include "src/tokenizers/unicode_classes.hpp"

#include <algorithm>
#include <iterator>

namespace attention::tokenizers {

namespace {

struct CodeRange {
  char32_t first;
  char32_t last;
};

#include "src/tokenizers/unicode_class_tables.inc"

template <std::size_t N>
bool in_ranges(const CodeRange (&ranges)[N], char32_t c) {
  // The first range that ends at or after c; c is in it if it also starts at or before c.
  const auto* it = std::lower_bound(std::begin(ranges), std::end(ranges), c,
                                    [](const CodeRange& r, char32_t value) { return r.last < value; });
  return it != std::end(ranges) && it->first <= c;
}

// How many bytes follow a lead byte, and the valid range of the first continuation
// byte (Unicode's table 3-7: it excludes overlong forms, surrogates and > U+10FFFF).
struct Lead {
  int continuation;
  unsigned char lo;
  unsigned char hi;
};

Lead lead_of(unsigned char b) {
  if (b >= 0xC2 && b <= 0xDF) return {1, 0x80, 0xBF};
  if (b == 0xE0) return {2, 0xA0, 0xBF};
  if (b == 0xED) return {2, 0x80, 0x9F};
  if (b >= 0xE1 && b <= 0xEF) return {2, 0x80, 0xBF};
  if (b == 0xF0) return {3, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {3, 0x80, 0xBF};
  if (b == 0xF4) return {3, 0x80, 0x8F};
  return {-1, 0, 0};  // a continuation byte or C0, C1, F5..FF: never a lead
}

// The length of the valid prefix of a sequence starting at text[i] (the maximal
// subpart), and whether it is a complete code point.
std::size_t valid_prefix(std::string_view text, std::size_t i, bool& complete) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  complete = false;
  if (b0 < 0x80) {
    complete = true;
    return 1;
  }
  const Lead lead = lead_of(b0);
  if (lead.continuation < 0) return 0;
  std::size_t n = 1;
  for (int k = 0; k < lead.continuation; ++k, ++n) {
    if (i + n >= text.size()) return n;
    const auto b = static_cast<unsigned char>(text[i + n]);
    const unsigned char lo = k == 0 ? lead.lo : 0x80;
    const unsigned char hi = k == 0 ? lead.hi : 0xBF;
    if (b < lo || b > hi) return n;
  }
  complete = true;
  return n;
}

}  // namespace

std::size_t decode_utf8(std::string_view text, std::size_t i, char32_t& code_point) {
  bool complete = false;
  const std::size_t n = valid_prefix(text, i, complete);
  if (!complete) return 0;
  const auto b0 = static_cast<unsigned char>(text[i]);
  char32_t c = n == 1 ? b0 : n == 2 ? (b0 & 0x1F) : n == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (std::size_t k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  code_point = c;
  return n;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::size_t find_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    bool complete = false;
    const std::size_t n = valid_prefix(text, i, complete);
    if (!complete) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string utf8_with_replacement(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    bool complete = false;
    const std::size_t n = valid_prefix(bytes, i, complete);
    if (complete) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD for the maximal subpart (at least one byte)
      i += n == 0 ? 1 : n;
    }
  }
  return out;
}

bool is_letter(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return in_ranges(kLetterRanges, c);
}

bool is_number(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return in_ranges(kNumberRanges, c);
}

bool is_space(char32_t c) {
  // White_Space (PropList.txt); stable since Unicode 6.3, so written out by hand.
  // It is exactly \s of the Python `regex` module (encoder.py's engine; checked over
  // all code points with regex 2026.5.9), unlike Python's str.isspace(), which also
  // takes U+001C..U+001F.
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace attention::tokenizers
