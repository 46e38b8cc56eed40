// The safetensors reader and writer: round trips, the exact byte layout, F16/BF16
// decoding, one case per rejected defect, and truncated or corrupted files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attention/safetensors.hpp"

namespace st = attention::safetensors;
namespace ec = attention::error_code;
using Bytes = std::vector<std::uint8_t>;

namespace {

// A file from a header text (used as is, padding included) and a data section.
Bytes make_file(const std::string& header, const Bytes& data = {}) {
  Bytes out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(std::uint64_t{header.size()} >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes f32_bytes(const std::vector<float>& values) {
  Bytes out;
  for (float v : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::uint8_t>(bits >> (8 * b)));
  }
  return out;
}

Bytes u16_bytes(const std::vector<std::uint16_t>& values) {
  Bytes out;
  for (std::uint16_t v : values)
    out.insert(out.end(), {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8)});
  return out;
}

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Reads from a heap copy of exactly `size` bytes, so that ASan sees any overread.
attention::Result<st::File> read_exact(const Bytes& file, std::size_t size) {
  const std::unique_ptr<std::uint8_t[]> copy(new std::uint8_t[size == 0 ? 1 : size]);
  if (size != 0) std::memcpy(copy.get(), file.data(), size);
  return st::read(copy.get(), size);
}
attention::Result<st::File> parse(const Bytes& file) { return read_exact(file, file.size()); }

bool known_code(const std::string& code) {
  for (const char* c : attention::kErrorCodes)
    if (code == c) return true;
  return false;
}

// Whatever the bytes: a well-formed error, or tensors that hold what they claim.
void expect_error_or_sound(const attention::Result<st::File>& r) {
  if (!r) {
    EXPECT_FALSE(r.error().empty());
    EXPECT_TRUE(known_code(r.error_value().code)) << r.error_value().code;
    return;
  }
  for (const st::Tensor& t : r.value().tensors) {
    std::size_t count = 1;
    for (int d : t.shape) count *= static_cast<std::size_t>(d);
    EXPECT_EQ(t.values.size(), count);
    for (float v : t.values) EXPECT_TRUE(std::isfinite(v));
  }
}

}  // namespace

TEST(Safetensors, RoundTripKeepsNamesShapesOrderValuesAndMetadata) {
  const float denormal = std::numeric_limits<float>::denorm_min();
  const std::vector<float> b = {1.5f, -0.0f, denormal, std::numeric_limits<float>::max(), -3.25e-20f, 7.0f};
  const float scalar = 0.1f;
  const std::map<std::string, std::string> metadata = {{"format", "pt"}, {"note", "ünï \"quoted\"\n"}};
  const Bytes file = st::write(
      {{"b.weight", {2, 3}, b.data()}, {"a", {}, &scalar}, {"empty", {0, 5}, nullptr}, {"z\u00e9", {1}, &scalar}},
      metadata);
  const auto r = parse(file);
  ASSERT_TRUE(r.ok()) << r.error();
  const st::File& f = r.value();
  ASSERT_EQ(f.tensors.size(), 4u);
  EXPECT_EQ(f.metadata, metadata);
  const std::vector<std::string> names = {"b.weight", "a", "empty", "z\u00e9"};
  const std::vector<std::vector<int>> shapes = {{2, 3}, {}, {0, 5}, {1}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(f.tensors[i].name, names[i]);
    EXPECT_EQ(f.tensors[i].shape, shapes[i]);
    EXPECT_EQ(f.tensors[i].dtype, st::DType::F32);
  }
  ASSERT_EQ(f.tensors[0].values.size(), b.size());
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(bits_of(f.tensors[0].values[i]), bits_of(b[i])) << i;
  EXPECT_EQ(f.tensors[1].values, std::vector<float>{scalar});
  EXPECT_TRUE(f.tensors[2].values.empty());
  ASSERT_NE(f.find("a"), nullptr);
  EXPECT_EQ(f.find("a")->name, "a");
  EXPECT_EQ(f.find("missing"), nullptr);
  EXPECT_EQ(
      st::write(
          {{"b.weight", {2, 3}, b.data()}, {"a", {}, &scalar}, {"empty", {0, 5}, nullptr}, {"z\u00e9", {1}, &scalar}},
          metadata),
      file)
      << "the writer is deterministic";
}

TEST(Safetensors, WriterPadsTheHeaderToAMultipleOf8WithSpaces) {
  const float v = 2.0f;
  for (std::string name = "x"; name.size() <= 9; name += "x") {
    const Bytes file = st::write({{name, {1}, &v}});
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | file[i];
    EXPECT_EQ(n % 8, 0u) << name;
    ASSERT_EQ(file.size(), 8 + n + 4);
    const std::string header(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(header.substr(0, header.find_last_not_of(' ') + 1).back(), '}');
    const auto r = parse(file);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.value().tensors[0].values, std::vector<float>{2.0f});
  }
}

TEST(Safetensors, KnownByteLayoutOfATinyFile) {
  const float values[] = {1.0f, -2.0f};
  const Bytes file = st::write({{"x", {2}, values}});
  const std::string json = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  ASSERT_EQ(json.size(), 54u);
  const Bytes expected = make_file(json + "  ", {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0});
  EXPECT_EQ(file, expected);
  EXPECT_EQ(Bytes(file.begin(), file.begin() + 8), (Bytes{56, 0, 0, 0, 0, 0, 0, 0}));
  const Bytes with_metadata = st::write({{"x", {2}, values}}, {{"format", "pt"}});
  const std::string header(with_metadata.begin() + 8, with_metadata.end() - 8);
  EXPECT_EQ(header.substr(0, 32), R"({"__metadata__":{"format":"pt"},)");
}

TEST(Safetensors, F16DecodesExactly) {
  struct Case {
    std::uint16_t bits;
    float value;
  };
  const Case cases[] = {
      {0x0000, 0.0f},
      {0x3c00, 1.0f},
      {0xc000, -2.0f},
      {0x3555, 0.333251953125f},
      {0x7bff, 65504.0f},
      {0xfbff, -65504.0f},  // max finite
      {0x0001, std::ldexp(1.0f, -24)},
      {0x8001, -std::ldexp(1.0f, -24)},  // smallest subnormal
      {0x03ff, std::ldexp(1023.0f, -24)},
      {0x0200, std::ldexp(1.0f, -15)},  // largest subnormal, 2^-15
      {0x0400, std::ldexp(1.0f, -14)},  // smallest normal
  };
  for (const Case& c : cases) EXPECT_EQ(bits_of(st::f16_to_f32(c.bits)), bits_of(c.value)) << std::hex << c.bits;
  EXPECT_EQ(bits_of(st::f16_to_f32(0x8000)), 0x80000000u);  // -0 keeps its sign
  EXPECT_EQ(st::f16_to_f32(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(st::f16_to_f32(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(st::f16_to_f32(0x7e00)));
  EXPECT_TRUE(std::isnan(st::f16_to_f32(0x7c01)));
  // Every half against the textbook formula (-1)^s * m * 2^(e-25), computed another way.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) continue;
    const float magnitude =
        e == 0 ? std::ldexp(static_cast<float>(m), -24) : std::ldexp(static_cast<float>(1024 + m), e - 25);
    ASSERT_EQ(bits_of(st::f16_to_f32(static_cast<std::uint16_t>(h))), bits_of((h & 0x8000) ? -magnitude : magnitude))
        << h;
  }
}

TEST(Safetensors, BF16DecodesExactly) {
  EXPECT_EQ(st::bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(st::bf16_to_f32(0xc000), -2.0f);
  EXPECT_EQ(st::bf16_to_f32(0x4049), 3.140625f);
  EXPECT_EQ(bits_of(st::bf16_to_f32(0x0000)), 0x00000000u);
  EXPECT_EQ(bits_of(st::bf16_to_f32(0x8000)), 0x80000000u);
  EXPECT_EQ(st::bf16_to_f32(0x7f7f), std::ldexp(255.0f, 127 - 7));  // max finite, 3.3895e38
  EXPECT_EQ(st::bf16_to_f32(0x0001), std::ldexp(1.0f, -133));       // smallest subnormal
  EXPECT_EQ(st::bf16_to_f32(0x0080), std::ldexp(1.0f, -126));       // smallest normal
  EXPECT_EQ(st::bf16_to_f32(0xff80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(st::bf16_to_f32(0x7fc0)));
}

TEST(Safetensors, ReadsF16AndBF16TensorsToFloat32) {
  Bytes data = u16_bytes({0x3c00, 0x0001, 0x8000, 0x7bff});
  const Bytes bf16 = u16_bytes({0x3f80, 0x7f7f});
  data.insert(data.end(), bf16.begin(), bf16.end());
  const auto r = parse(make_file(R"({"h":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},)"
                                 R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]}})",
                                 data));
  ASSERT_TRUE(r.ok()) << r.error();
  const st::Tensor& h = r.value().tensors[0];
  EXPECT_EQ(h.dtype, st::DType::F16);
  EXPECT_STREQ(st::to_string(h.dtype), "F16");
  EXPECT_EQ(h.values, (std::vector<float>{1.0f, std::ldexp(1.0f, -24), -0.0f, 65504.0f}));
  EXPECT_TRUE(std::signbit(h.values[2]));
  const st::Tensor& b = r.value().tensors[1];
  EXPECT_EQ(b.dtype, st::DType::BF16);
  EXPECT_EQ(b.values, (std::vector<float>{1.0f, std::ldexp(255.0f, 120)}));
}

TEST(Safetensors, ReadsTheReferenceImplementationsLayoutAndAnyKeyOrder) {
  // What safetensors.torch.save_file({"weight": 2x2, "bias": 2}, metadata={"format": "pt"})
  // writes: __metadata__ first, tensors in offset order, padding to 8.
  const Bytes data = f32_bytes({0.5f, -0.5f, 1, 2, 3, 4});
  std::string json = R"({"__metadata__":{"format":"pt"},"bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                     R"("weight":{"dtype":"F32","shape":[2,2],"data_offsets":[8,24]}})";
  json.append((8 - json.size() % 8) % 8, ' ');
  // The same tensors with the header's keys, and the keys of each entry, in another order.
  const std::string shuffled =
      R"({"weight":{"data_offsets":[8,24],"shape":[2,2],"dtype":"F32"},)"
      R"("bias":{"shape":[2],"data_offsets":[0,8],"dtype":"F32"},"__metadata__":{"format":"pt"}})";
  for (const std::string& header : {json, shuffled}) {
    const auto r = parse(make_file(header, data));
    ASSERT_TRUE(r.ok()) << r.error();
    const st::File& f = r.value();
    ASSERT_EQ(f.tensors.size(), 2u);
    EXPECT_EQ(f.tensors[0].name, "bias");  // offset order, whatever the key order
    EXPECT_EQ(f.tensors[0].values, (std::vector<float>{0.5f, -0.5f}));
    EXPECT_EQ(f.tensors[1].name, "weight");
    EXPECT_EQ(f.tensors[1].shape, (std::vector<int>{2, 2}));
    EXPECT_EQ(f.tensors[1].values, (std::vector<float>{1, 2, 3, 4}));
    EXPECT_EQ(f.metadata.at("format"), "pt");
  }
}

TEST(Safetensors, AcceptsEdgeCases) {
  // No tensors at all; zero-element tensors (begin == end) anywhere, whatever their other dims;
  // brackets inside names do not count as nesting.
  ASSERT_TRUE(parse(make_file("{}")).ok());
  ASSERT_TRUE(parse(make_file("{}      ")).ok());
  const auto r = parse(make_file(
      R"({"e0":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
      R"("[[[[[{{{{\"":{"dtype":"BF16","shape":[2,0,2147483647],"data_offsets":[4,4]},)"
      R"("s":{"dtype":"F16","shape":[],"data_offsets":[4,6]}})",
      {0, 0, 0x80, 0x3f, 0x00, 0x3c}));
  ASSERT_TRUE(r.ok()) << r.error();
  const st::File& f = r.value();
  ASSERT_EQ(f.tensors.size(), 4u);
  EXPECT_EQ(f.tensors[0].name, "e0");
  EXPECT_EQ(f.tensors[1].name, "x");
  EXPECT_EQ(f.tensors[2].name, "[[[[[{{{{\"");
  EXPECT_TRUE(f.tensors[2].values.empty());
  EXPECT_EQ(f.tensors[3].values, std::vector<float>{1.0f});
}

namespace {

struct Rejection {
  const char* what;
  Bytes file;
  const char* code;
  const char* field;
  const char* message;  // a part of the message
};

// One tensor entry with `data` as its data section.
Bytes one(const std::string& entry, const Bytes& data = f32_bytes({1})) {
  return make_file(R"({"w":)" + entry + "}", data);
}

Bytes with_length(std::uint64_t n, std::size_t total) {
  Bytes out(total, ' ');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(n >> (8 * i));
  return out;
}

std::vector<Rejection> rejections() {
  const std::string f32_1 = R"("dtype":"F32","shape":[1],"data_offsets":[0,4])";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  return {
      {"empty file", {}, ec::kBadFile, "", "too short"},
      {"7 bytes", Bytes(7, 0), ec::kBadFile, "", "too short"},
      {"header beyond the file", with_length(20, 16), ec::kBadFile, "", "beyond the end of the file"},
      {"absurd header length", with_length(std::uint64_t{1} << 40, 16), ec::kLimitExceeded, "", "exceeds the limit"},
      {"header length 2^64-1", with_length(~std::uint64_t{0}, 8), ec::kLimitExceeded, "", "exceeds the limit"},
      {"empty header", make_file(""), ec::kBadFile, "", "must be a JSON object"},
      {"not JSON", make_file("{nope}"), ec::kBadFile, "", "not valid JSON"},
      {"not an object", make_file("[1, 2]"), ec::kBadFile, "", "must be a JSON object"},
      {"padding other than spaces", make_file("{}\n"), ec::kBadFile, "", "must be a JSON object"},
      {"invalid UTF-8", make_file("{\"\xff\":1}"), ec::kBadFile, "", "not valid JSON"},
      {"deep nesting", make_file(R"({"w":[[[[[1]]]]]})"), ec::kBadFile, "", "nested deeper than 4"},
      {"very deep nesting", make_file("{\"w\":" + std::string(100000, '[') + std::string(100000, ']') + "}"),
       ec::kBadFile, "", "nested deeper"},
      {"entry not an object", one("[1]"), ec::kBadFile, "w", "must be an object"},
      {"missing dtype", one(R"({"shape":[1],"data_offsets":[0,4]})"), ec::kBadFile, "w", "missing \"dtype\""},
      {"missing shape", one(R"({"dtype":"F32","data_offsets":[0,4]})"), ec::kBadFile, "w", "missing \"shape\""},
      {"missing offsets", one(R"({"dtype":"F32","shape":[1]})"), ec::kBadFile, "w", "missing \"data_offsets\""},
      {"extra key", one("{" + f32_1 + R"(,"foo":1})"), ec::kBadFile, "w", "unexpected key \"foo\""},
      {"dtype not a string", one(R"({"dtype":32,"shape":[1],"data_offsets":[0,4]})"), ec::kBadFile, "w",
       "dtype must be a string"},
      {"I64", one(R"({"dtype":"I64","shape":[1],"data_offsets":[0,8]})", Bytes(8)), ec::kUnsupportedDtype, "w", "I64"},
      {"F64", one(R"({"dtype":"F64","shape":[1],"data_offsets":[0,8]})", Bytes(8)), ec::kUnsupportedDtype, "w",
       "F64 is not supported"},
      {"U8", one(R"({"dtype":"U8","shape":[1],"data_offsets":[0,1]})", Bytes(1)), ec::kUnsupportedDtype, "w", "U8"},
      {"shape not an array", one(R"({"dtype":"F32","shape":1,"data_offsets":[0,4]})"), ec::kBadFile, "w",
       "shape must be an array"},
      {"negative dim", one(R"({"dtype":"F32","shape":[-1],"data_offsets":[0,4]})"), ec::kBadFile, "w", "is negative"},
      {"fractional dim", one(R"({"dtype":"F32","shape":[1.5],"data_offsets":[0,4]})"), ec::kBadFile, "w",
       "not an integer"},
      {"float dim", one(R"({"dtype":"F32","shape":[1.0],"data_offsets":[0,4]})"), ec::kBadFile, "w", "not an integer"},
      {"string dim", one(R"({"dtype":"F32","shape":["1"],"data_offsets":[0,4]})"), ec::kBadFile, "w", "not a number"},
      {"dim beyond int", one(R"({"dtype":"F32","shape":[3000000000],"data_offsets":[0,4]})"), ec::kLimitExceeded, "w",
       "too large"},
      {"count overflow", one(R"({"dtype":"F32","shape":[2147483647,2147483647,2147483647],"data_offsets":[0,4]})"),
       ec::kLimitExceeded, "w", "overflows"},
      {"offsets not an array", one(R"({"dtype":"F32","shape":[1],"data_offsets":4})"), ec::kBadFile, "w",
       "two integers"},
      {"three offsets", one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4,4]})"), ec::kBadFile, "w",
       "two integers"},
      {"negative offset", one(R"({"dtype":"F32","shape":[1],"data_offsets":[-4,0]})"), ec::kBadFile, "w",
       "begin is negative"},
      {"float offset", one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4.0]})"), ec::kBadFile, "w",
       "end is not an integer"},
      {"begin after end", one(R"({"dtype":"F32","shape":[0],"data_offsets":[4,0]})"), ec::kBadFile, "w",
       "is after end"},
      {"span vs shape", one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,4]})"), ec::kShapeMismatch, "w",
       "span 4 bytes"},
      {"truncated data", one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})"), ec::kBadFile, "w",
       "beyond the data section"},
      {"overlap",
       make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                 R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                 Bytes(12)),
       ec::kBadFile, "b", "overlaps tensor \"a\""},
      {"gap",
       make_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                 R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                 Bytes(12)),
       ec::kBadFile, "b", "gap"},
      {"bytes left over", one("{" + f32_1 + "}", Bytes(8)), ec::kBadFile, "", "4 bytes at the end"},
      {"data without tensors", make_file("{}", Bytes(3)), ec::kBadFile, "", "belong to no tensor"},
      {"duplicate name", make_file(R"({"w":{)" + f32_1 + R"(},"w":{)" + f32_1 + "}}", Bytes(4)), ec::kBadFile, "w",
       "twice"},
      {"duplicate key", one(R"({"dtype":"F32","dtype":"F16","shape":[1],"data_offsets":[0,4]})"), ec::kBadFile, "w",
       "duplicate key \"dtype\""},
      {"metadata not an object", make_file(R"({"__metadata__":"pt"})"), ec::kBadFile, "__metadata__",
       "must be an object"},
      {"metadata not strings", make_file(R"({"__metadata__":{"n":1}})"), ec::kBadFile, "__metadata__",
       "must be a string"},
      {"duplicate metadata", make_file(R"({"__metadata__":{},"__metadata__":{}})"), ec::kBadFile, "__metadata__",
       "twice"},
      {"empty name", make_file(R"({"":{)" + f32_1 + "}}", Bytes(4)), ec::kBadFile, "", "empty name"},
      {"NaN", one(R"({"dtype":"F32","shape":[3],"data_offsets":[0,12]})", f32_bytes({1, nan, 2})), ec::kNonFinite, "w",
       "element 1 is NaN"},
      {"F16 infinity", one(R"({"dtype":"F16","shape":[2],"data_offsets":[0,4]})", u16_bytes({0, 0x7c00})),
       ec::kNonFinite, "w", "element 1 is +Infinity"},
      {"BF16 -infinity", one(R"({"dtype":"BF16","shape":[1],"data_offsets":[0,2]})", u16_bytes({0xff80})),
       ec::kNonFinite, "w", "element 0 is -Infinity"},
  };
}

}  // namespace

TEST(Safetensors, RejectsEachDefectWithCodeFieldAndMessage) {
  for (const Rejection& c : rejections()) {
    SCOPED_TRACE(c.what);
    const auto r = parse(c.file);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error_value().code, c.code);
    EXPECT_EQ(r.error_value().field, c.field);
    EXPECT_NE(r.error().find(c.message), std::string::npos) << r.error();
  }
}

TEST(Safetensors, TruncatedAndCorruptedFilesGiveErrorsOnly) {
  const float a[] = {1.0f, -2.5f, 3.0f};
  const Bytes valid = st::write({{"a", {3}, a}, {"b", {1, 2}, a + 1}}, {{"k", "v"}});
  ASSERT_TRUE(parse(valid).ok());
  for (std::size_t size = 0; size < valid.size(); ++size) {
    const auto r = read_exact(valid, size);
    ASSERT_FALSE(r.ok()) << "a file cut to " << size << " bytes was accepted";
    expect_error_or_sound(r);
  }
  Bytes corrupted = valid;
  for (std::size_t i = 0; i < valid.size(); ++i)
    for (std::uint8_t mask : {0x01, 0x02, 0x10, 0x20, 0x80, 0xff}) {
      corrupted[i] ^= mask;
      expect_error_or_sound(parse(corrupted));
      corrupted[i] = valid[i];
    }
}
