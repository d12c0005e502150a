#include "parquet/encoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/testing.h"
#include "parquet/format.h"

namespace weir::parquet {
namespace {

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string Raw(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

std::string Hex(const std::string& s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
    out.push_back(' ');
  }
  if (!out.empty()) out.pop_back();
  return out;
}

constexpr int64_t kCounts[] = {0, 1, 7, 8, 9, 1000};

// Values of exactly `bit_width` bits at most, in a mix of runs and noise.
std::vector<uint32_t> LevelLikeValues(int bit_width, int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint64_t limit = bit_width == 0 ? 1 : (uint64_t{1} << bit_width);
  std::vector<uint32_t> values;
  values.reserve(count);
  while (static_cast<int64_t>(values.size()) < count) {
    const uint32_t v = static_cast<uint32_t>(rng() % limit);
    const int mode = rng() % 3;
    const int64_t run = mode == 0 ? 1 + rng() % 20 : (mode == 1 ? 1 : 1 + rng() % 3);
    for (int64_t k = 0; k < run && static_cast<int64_t>(values.size()) < count; ++k) {
      values.push_back(mode == 1 ? static_cast<uint32_t>(rng() % limit) : v);
    }
  }
  return values;
}

TEST(BitWidthTest, CountsSignificantBits) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(2), 2);
  EXPECT_EQ(BitWidth(255), 8);
  EXPECT_EQ(BitWidth(256), 9);
  EXPECT_EQ(BitWidth(~uint64_t{0}), 64);
}

// ---------------------------------------------------------------------------------------------
// Bit packing

TEST(BitPackingTest, MatchesTheSpecExample) {
  // Encodings.md: 0..7 with bit width 3 packs to 10001000 11000110 11111010.
  const uint32_t values[] = {0, 1, 2, 3, 4, 5, 6, 7};
  std::string out;
  PackBits(values, 8, 3, &out);
  EXPECT_EQ(Hex(out), "88 c6 fa");
  uint32_t back[8];
  ASSERT_OK(UnpackBits(U8(out), out.size(), 3, 8, back));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(back[i], values[i]);
}

TEST(BitPackingTest, RoundTripsEveryWidthAndCount) {
  std::mt19937_64 rng(7);
  for (int width = 0; width <= 64; ++width) {
    for (int64_t count : kCounts) {
      SCOPED_TRACE("width " + std::to_string(width) + " count " + std::to_string(count));
      std::vector<uint64_t> values(count);
      for (auto& v : values) v = width == 64 ? rng() : rng() & ((uint64_t{1} << width) - 1);
      std::string packed;
      PackBits(values.data(), count, width, &packed);
      ASSERT_EQ(packed.size(), static_cast<size_t>((count * width + 7) / 8));
      std::vector<uint64_t> back(count);
      ASSERT_OK(UnpackBits(U8(packed), packed.size(), width, count, back.data()));
      EXPECT_EQ(back, values);
      if (width <= 32) {
        std::vector<uint32_t> narrow(values.begin(), values.end());
        std::string packed32;
        PackBits(narrow.data(), count, width, &packed32);
        EXPECT_EQ(packed32, packed);
        std::vector<uint32_t> back32(count);
        ASSERT_OK(UnpackBits(U8(packed), packed.size(), width, count, back32.data()));
        EXPECT_EQ(back32, narrow);
      }
    }
  }
}

TEST(BitPackingTest, ShortInputIsCorruption) {
  std::string packed(3, '\xff');
  uint32_t out[9];
  ASSERT_STATUS_CODE(kCorruption, UnpackBits(U8(packed), packed.size(), 3, 9, out));
  ASSERT_STATUS_CODE(kCorruption, UnpackBits(U8(packed), packed.size(), 33, 1, out));
  ASSERT_OK(UnpackBits(U8(packed), packed.size(), 3, 8, out));
}

// ---------------------------------------------------------------------------------------------
// RLE / bit-packed hybrid

template <typename T>
std::vector<T> DecodeAll(const std::string& bytes, int width, int64_t count, int64_t chunk) {
  RleBitPackedDecoder decoder(U8(bytes), bytes.size(), width);
  std::vector<T> out(count);
  for (int64_t done = 0; done < count; done += chunk) {
    Status st = decoder.GetBatch(out.data() + done, std::min(chunk, count - done));
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) break;
  }
  return out;
}

TEST(RleBitPackedTest, EncodesKnownBytes) {
  // Ten 1s (an RLE run), then 0,1,0,1,0,1,0,1 (one bit-packed group, LSB first).
  RleBitPackedEncoder encoder(1);
  for (int i = 0; i < 10; ++i) encoder.Put(1u);
  for (int i = 0; i < 8; ++i) encoder.Put(static_cast<uint32_t>(i % 2));
  std::string out;
  encoder.FlushWithLengthPrefix(&out);
  EXPECT_EQ(Hex(out), "04 00 00 00 14 01 03 aa");

  // The encoder is reusable after a flush.
  const uint16_t levels[] = {3, 3, 3, 3, 3, 3, 3, 3, 3};
  RleBitPackedEncoder encoder2(2);
  encoder2.Put(levels, 9);
  std::string bare;
  encoder2.Flush(&bare);
  EXPECT_EQ(Hex(bare), "12 03");
}

TEST(RleBitPackedTest, DecodesHandAssembledRuns) {
  // Bit width 3: RLE run of 5 x 6, then bit-packed 0..7 (the spec's packing example).
  const std::string bytes = Raw({0x0a, 0x06, 0x03, 0x88, 0xc6, 0xfa});
  EXPECT_EQ(DecodeAll<uint32_t>(bytes, 3, 13, 13),
            (std::vector<uint32_t>{6, 6, 6, 6, 6, 0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(DecodeAll<uint8_t>(bytes, 3, 13, 1),
            (std::vector<uint8_t>{6, 6, 6, 6, 6, 0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(RleBitPackedTest, RoundTripsEveryWidthCountAndChunking) {
  for (int width = 0; width <= 32; ++width) {
    for (int64_t count : kCounts) {
      for (uint32_t seed : {1u, 2u}) {
        SCOPED_TRACE("width " + std::to_string(width) + " count " + std::to_string(count));
        const std::vector<uint32_t> values = LevelLikeValues(width, count, seed + width);
        // Put() one at a time and in uneven batches must give the same bytes.
        RleBitPackedEncoder one_by_one(width);
        for (uint32_t v : values) one_by_one.Put(v);
        std::string a;
        one_by_one.Flush(&a);
        RleBitPackedEncoder batched(width);
        for (int64_t i = 0; i < count; i += 13) {
          batched.Put(values.data() + i, std::min<int64_t>(13, count - i));
        }
        std::string b;
        batched.Flush(&b);
        EXPECT_EQ(a, b);
        for (int64_t chunk : {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{100}, count + 1}) {
          EXPECT_EQ(DecodeAll<uint32_t>(a, width, count, std::max<int64_t>(chunk, 1)), values);
        }
        if (width <= 16) {
          std::vector<uint16_t> narrow(values.begin(), values.end());
          RleBitPackedEncoder encoder16(width);
          encoder16.Put(narrow.data(), count);
          std::string c;
          encoder16.Flush(&c);
          EXPECT_EQ(c, a);
          EXPECT_EQ(DecodeAll<uint16_t>(a, width, count, 7), narrow);
        }
      }
    }
  }
}

TEST(RleBitPackedTest, UsesRleRunsForRepeatsAndBitPackingOtherwise) {
  std::vector<uint32_t> same(100000, 5);
  RleBitPackedEncoder rle(3);
  rle.Put(same.data(), same.size());
  std::string out;
  rle.Flush(&out);
  EXPECT_EQ(out.size(), 4u);  // 3-byte varint header (200000) + 1 value byte

  std::vector<uint32_t> distinct(800);
  for (size_t i = 0; i < distinct.size(); ++i) distinct[i] = i % 2;
  RleBitPackedEncoder packed(1);
  packed.Put(distinct.data(), distinct.size());
  const size_t estimate = packed.EstimatedSize();
  out.clear();
  packed.Flush(&out);
  // 100 groups: runs of at most 63 groups with a 1-byte header each.
  EXPECT_EQ(out.size(), 100u + 2u);
  EXPECT_GE(estimate, out.size());
  EXPECT_LE(estimate, out.size() + 16);
}

TEST(RleBitPackedTest, LengthPrefixedAndDictionaryForms) {
  std::vector<uint32_t> values = LevelLikeValues(10, 1000, 3);
  RleBitPackedEncoder encoder(10);
  encoder.Put(values.data(), values.size());
  std::string page;
  encoder.FlushWithLengthPrefix(&page);
  page += "values";
  RleBitPackedDecoder decoder;
  size_t consumed = 0;
  ASSERT_OK(
      RleBitPackedDecoder::OpenLengthPrefixed(U8(page), page.size(), 10, &decoder, &consumed));
  EXPECT_EQ(page.substr(consumed), "values");
  std::vector<uint32_t> back(values.size());
  ASSERT_OK(decoder.GetBatch(back.data(), back.size()));
  EXPECT_EQ(back, values);

  std::string indices(1, 10);
  RleBitPackedEncoder index_encoder(10);
  index_encoder.Put(values.data(), values.size());
  index_encoder.Flush(&indices);
  ASSERT_OK(RleBitPackedDecoder::OpenDictionaryIndices(U8(indices), indices.size(), &decoder));
  EXPECT_EQ(decoder.bit_width(), 10);
  ASSERT_OK(decoder.GetBatch(back.data(), back.size()));
  EXPECT_EQ(back, values);
}

TEST(RleBitPackedTest, MalformedInputIsCorruption) {
  uint32_t out[16];
  // The input ends before the values do.
  const std::string short_run = Raw({0x0a, 0x01});  // 5 x 1
  RleBitPackedDecoder d1(U8(short_run), short_run.size(), 1);
  Status st = d1.GetBatch(out, 6);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("after 5 values"), std::string::npos) << st.ToString();
  // A truncated RLE value.
  const std::string no_value = Raw({0x0a, 0x01});
  RleBitPackedDecoder d2(U8(no_value), no_value.size(), 9);
  ASSERT_STATUS_CODE(kCorruption, d2.GetBatch(out, 1));
  // A run value wider than the bit width.
  const std::string wide = Raw({0x0a, 0x04});
  RleBitPackedDecoder d3(U8(wide), wide.size(), 2);
  ASSERT_STATUS_CODE(kCorruption, d3.GetBatch(out, 1));
  // A truncated varint header.
  const std::string header = Raw({0x80});
  RleBitPackedDecoder d4(U8(header), header.size(), 2);
  ASSERT_STATUS_CODE(kCorruption, d4.GetBatch(out, 1));
  // Bit widths too large for the output or the format.
  RleBitPackedDecoder d5(U8(wide), wide.size(), 9);
  uint8_t bytes[1];
  ASSERT_STATUS_CODE(kCorruption, d5.GetBatch(bytes, 1));
  const std::string bad_width = Raw({33, 0x02, 0x00});
  RleBitPackedDecoder d6;
  ASSERT_STATUS_CODE(kCorruption,
                     RleBitPackedDecoder::OpenDictionaryIndices(U8(bad_width), 3, &d6));
  // A length prefix beyond the data.
  const std::string prefix = Raw({0x10, 0, 0, 0, 1, 2});
  size_t consumed;
  ASSERT_STATUS_CODE(kCorruption,
                     RleBitPackedDecoder::OpenLengthPrefixed(U8(prefix), 6, 1, &d6, &consumed));
  ASSERT_STATUS_CODE(kCorruption,
                     RleBitPackedDecoder::OpenLengthPrefixed(U8(prefix), 3, 1, &d6, &consumed));
}

TEST(RleBitPackedTest, HugeRunHeadersAllocateNothing) {
  // An RLE run of 2^31 - 1 values and a bit-packed run claiming 2^30 groups of width 0.
  const std::string bytes = Raw({0xfe, 0xff, 0xff, 0xff, 0x0f, 0x01});
  RleBitPackedDecoder d(U8(bytes), bytes.size(), 1);
  uint32_t out[10];
  ASSERT_OK(d.GetBatch(out, 10));
  EXPECT_EQ(out[9], 1u);
  const std::string zero_width = Raw({0x81, 0x80, 0x80, 0x80, 0x08});
  RleBitPackedDecoder z(U8(zero_width), zero_width.size(), 0);
  ASSERT_OK(z.GetBatch(out, 10));
  EXPECT_EQ(out[0], 0u);
}

TEST(RleBitPackedTest, TruncatedLastBitPackedRunDecodesWhatItHolds) {
  // One group of width 8 announced, only 3 bytes present.
  const std::string bytes = Raw({0x03, 7, 8, 9});
  RleBitPackedDecoder d(U8(bytes), bytes.size(), 8);
  uint32_t out[4];
  ASSERT_OK(d.GetBatch(out, 3));
  EXPECT_EQ(out[0], 7u);
  EXPECT_EQ(out[2], 9u);
  ASSERT_STATUS_CODE(kCorruption, d.GetBatch(out, 1));
}

TEST(RleBitPackedTest, RandomInputNeverCrashes) {
  std::mt19937 rng(99);
  std::vector<uint32_t> out(4096);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bytes(rng() % 40, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    RleBitPackedDecoder d(U8(bytes), bytes.size(), static_cast<int>(rng() % 34));
    (void)d.GetBatch(out.data(), rng() % out.size());
    (void)d.GetBatch(out.data(), rng() % 9);
  }
}

// ---------------------------------------------------------------------------------------------
// PLAIN

template <typename T>
void ExpectPlainRoundTrip(const std::vector<T>& values) {
  std::string bytes;
  EncodePlain(values.data(), values.size(), &bytes);
  ASSERT_EQ(bytes.size(), values.size() * sizeof(T));
  bytes += "xyz";
  std::vector<T> back(values.size());
  size_t consumed = 0;
  ASSERT_OK(DecodePlain(U8(bytes), bytes.size(), values.size(), back.data(), &consumed));
  EXPECT_EQ(consumed, values.size() * sizeof(T));
  if (!values.empty()) {
    EXPECT_EQ(std::memcmp(back.data(), values.data(), values.size() * sizeof(T)), 0);
    ASSERT_STATUS_CODE(kCorruption,
                       DecodePlain(U8(bytes), consumed - 1, values.size(), back.data(), &consumed));
  }
}

TEST(PlainTest, RoundTripsFixedWidthTypes) {
  ExpectPlainRoundTrip<int32_t>({0, 1, -1, INT32_MIN, INT32_MAX});
  ExpectPlainRoundTrip<int64_t>({0, -1, INT64_MIN, INT64_MAX});
  ExpectPlainRoundTrip<float>({0.0f, -0.0f, 1.5f, std::numeric_limits<float>::quiet_NaN()});
  ExpectPlainRoundTrip<double>({0.0, -1e300, std::numeric_limits<double>::infinity()});
  ExpectPlainRoundTrip<Int96>({Int96{{1, 2, 3}}, Int96{{0xffffffff, 0, 2440588}}});
  ExpectPlainRoundTrip<int32_t>({});
}

TEST(PlainTest, WritesLittleEndianBytes) {
  const int32_t i32[] = {1, -2};
  std::string out;
  EncodePlain(i32, 2, &out);
  EXPECT_EQ(Hex(out), "01 00 00 00 fe ff ff ff");
  const std::string_view strings[] = {"ab", ""};
  out.clear();
  EncodePlainByteArray(strings, 2, &out);
  EXPECT_EQ(Hex(out), "02 00 00 00 61 62 00 00 00 00");
  const uint8_t bools[] = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1};
  out.clear();
  EncodePlainBoolean(bools, 10, &out);
  EXPECT_EQ(Hex(out), "0d 03");
}

TEST(PlainTest, RoundTripsBooleans) {
  std::mt19937 rng(5);
  for (int64_t count : kCounts) {
    std::vector<uint8_t> values(count);
    for (auto& v : values) v = rng() % 2;
    std::string bytes;
    EncodePlainBoolean(values.data(), count, &bytes);
    ASSERT_EQ(bytes.size(), static_cast<size_t>((count + 7) / 8));
    std::vector<uint8_t> back(count);
    size_t consumed;
    ASSERT_OK(DecodePlainBoolean(U8(bytes), bytes.size(), count, back.data(), &consumed));
    EXPECT_EQ(back, values);
    EXPECT_EQ(consumed, bytes.size());
    if (count > 0) {
      ASSERT_STATUS_CODE(kCorruption, DecodePlainBoolean(U8(bytes), bytes.size() - 1, count,
                                                         back.data(), &consumed));
    }
  }
}

TEST(PlainTest, ByteArraysAreViewsIntoThePage) {
  const std::vector<std::string_view> values = {"", "a", std::string_view("\0\xff", 2), "hello"};
  std::string bytes;
  EncodePlainByteArray(values.data(), values.size(), &bytes);
  std::vector<std::string_view> back(values.size());
  size_t consumed;
  ASSERT_OK(DecodePlainByteArray(U8(bytes), bytes.size(), values.size(), back.data(), &consumed));
  EXPECT_EQ(back, values);
  EXPECT_EQ(consumed, bytes.size());
  EXPECT_EQ(back[3].data(), bytes.data() + bytes.size() - 5);
  for (size_t n = 0; n < bytes.size(); ++n) {
    ASSERT_STATUS_CODE(kCorruption,
                       DecodePlainByteArray(U8(bytes), n, values.size(), back.data(), &consumed));
  }
  // A length far beyond the page.
  const std::string huge = Raw({0xff, 0xff, 0xff, 0x7f, 'a'});
  ASSERT_STATUS_CODE(kCorruption,
                     DecodePlainByteArray(U8(huge), huge.size(), 1, back.data(), &consumed));
}

TEST(PlainTest, FixedLenByteArrays) {
  const std::vector<std::string_view> values = {"abcd", "efgh", "ijkl"};
  std::string bytes;
  EncodePlainFixedLenByteArray(values.data(), 3, 4, &bytes);
  EXPECT_EQ(bytes, "abcdefghijkl");
  std::vector<std::string_view> back(3);
  size_t consumed;
  ASSERT_OK(DecodePlainFixedLenByteArray(U8(bytes), bytes.size(), 3, 4, back.data(), &consumed));
  EXPECT_EQ(back, values);
  ASSERT_STATUS_CODE(kCorruption,
                     DecodePlainFixedLenByteArray(U8(bytes), 11, 3, 4, back.data(), &consumed));
}

// ---------------------------------------------------------------------------------------------
// Dictionaries

TEST(DictionaryTest, ByteArraysMapToFirstSeenIndices) {
  ByteArrayDictionary dict;
  std::vector<std::string> strings;
  for (int i = 0; i < 5000; ++i) strings.push_back("value-" + std::to_string(i * 7919 % 3000));
  strings.push_back("");
  std::vector<std::string_view> views(strings.begin(), strings.end());
  std::vector<uint32_t> indices(views.size());
  dict.Insert(views.data(), views.size(), indices.data());
  ASSERT_EQ(dict.size(), 3001);  // grows well past the initial table
  int64_t plain = 0;
  for (int64_t i = 0; i < dict.size(); ++i) plain += 4 + dict.value(i).size();
  EXPECT_EQ(dict.plain_size(), plain);
  for (size_t i = 0; i < views.size(); ++i) ASSERT_EQ(dict.value(indices[i]), views[i]);
  EXPECT_EQ(indices[0], 0u);
  EXPECT_EQ(dict.Insert(views[1]), indices[1]);
  EXPECT_EQ(dict.size(), 3001);

  std::string page;
  dict.WritePlain(&page);
  ASSERT_EQ(static_cast<int64_t>(page.size()), dict.plain_size());
  std::vector<std::string_view> entries(dict.size());
  size_t consumed;
  ASSERT_OK(DecodePlainByteArray(U8(page), page.size(), dict.size(), entries.data(), &consumed));
  for (size_t i = 0; i < views.size(); ++i) ASSERT_EQ(entries[indices[i]], views[i]);

  dict.Clear();
  EXPECT_EQ(dict.size(), 0);
  EXPECT_EQ(dict.Insert("x"), 0u);
  EXPECT_EQ(dict.plain_size(), 5);
}

TEST(DictionaryTest, FixedWidthValuesCompareByBits) {
  FixedWidthDictionary<double> dict;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(dict.Insert(0.0), 0u);
  EXPECT_EQ(dict.Insert(-0.0), 1u);
  EXPECT_EQ(dict.Insert(nan), 2u);
  EXPECT_EQ(dict.Insert(nan), 2u);
  EXPECT_EQ(dict.Insert(0.0), 0u);
  EXPECT_EQ(dict.plain_size(), 24);

  FixedWidthDictionary<int64_t> ints;
  std::mt19937_64 rng(3);
  std::vector<int64_t> values(20000);
  for (auto& v : values) v = static_cast<int64_t>(rng() % 5000) - 2500;
  std::vector<uint32_t> indices(values.size());
  ints.Insert(values.data(), values.size(), indices.data());
  for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(ints.values()[indices[i]], values[i]);
  EXPECT_LE(ints.size(), 5000);
  std::string page;
  ints.WritePlain(&page);
  EXPECT_EQ(static_cast<int64_t>(page.size()), ints.plain_size());

  FixedWidthDictionary<int32_t> small;
  FixedWidthDictionary<float> floats;
  EXPECT_EQ(small.Insert(7), 0u);
  EXPECT_EQ(small.Insert(-7), 1u);
  EXPECT_EQ(floats.Insert(1.5f), 0u);
  EXPECT_EQ(floats.Insert(1.5f), 0u);
}

// The batch inserts (hashes a block ahead; fixed width: runs looked up once) give the indices and
// entries that inserting one value at a time gives: runs across block and call boundaries, runs
// through the table's growth, -0.0 next to 0.0 (equal, but distinct bits), empty strings, a
// second round after Clear().
TEST(DictionaryTest, BatchInsertsMatchOneAtATime) {
  std::mt19937_64 rng(11);
  std::vector<std::string> strings;
  std::vector<double> doubles;
  for (int i = 0; i < 30000; ++i) {
    const int run = static_cast<int>(rng() % 5 == 0 ? rng() % 70 : 1);  // some runs span blocks
    const uint64_t v = rng() % 9000;
    for (int k = 0; k < run; ++k) {
      strings.push_back(v % 97 == 0 ? "" : "key-" + std::to_string(v));
      doubles.push_back(v % 2 == 0 ? 0.0 : (v % 3 == 0 ? -0.0 : static_cast<double>(v)));
    }
  }
  std::vector<std::string_view> views(strings.begin(), strings.end());
  ByteArrayDictionary batch, single;
  std::vector<uint32_t> indices(views.size());
  // Uneven calls, so that call and block boundaries fall inside runs.
  for (size_t at = 0; at < views.size();) {
    const size_t n = std::min<size_t>(views.size() - at, 1 + rng() % 300);
    batch.Insert(views.data() + at, static_cast<int64_t>(n), indices.data() + at);
    at += n;
  }
  for (size_t i = 0; i < views.size(); ++i) ASSERT_EQ(indices[i], single.Insert(views[i])) << i;
  ASSERT_EQ(batch.size(), single.size());
  for (int64_t i = 0; i < batch.size(); ++i) ASSERT_EQ(batch.value(i), single.value(i));

  FixedWidthDictionary<double> batch_d, single_d;
  std::vector<uint32_t> d_indices(doubles.size());
  // Twice, with a Clear() between: nothing of the first round may leak into the second.
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    batch_d.Clear();
    single_d.Clear();
    for (size_t at = 0; at < doubles.size();) {
      const size_t n = std::min<size_t>(doubles.size() - at, 1 + rng() % 300);
      batch_d.Insert(doubles.data() + at, static_cast<int64_t>(n), d_indices.data() + at);
      at += n;
    }
    for (size_t i = 0; i < doubles.size(); ++i) {
      ASSERT_EQ(d_indices[i], single_d.Insert(doubles[i])) << i;
    }
    ASSERT_EQ(batch_d.size(), single_d.size());
    EXPECT_EQ(0, std::memcmp(batch_d.values().data(), single_d.values().data(),
                             batch_d.values().size() * sizeof(double)));
    if (round == 0) std::reverse(doubles.begin(), doubles.end());
  }
}

// ---------------------------------------------------------------------------------------------
// DELTA_BINARY_PACKED

TEST(DeltaBinaryPackedTest, DecodesTheSpecExamples) {
  // Encodings.md's examples use blocks of 8 values; these are the same streams with a block of
  // 128 values in one miniblock (the smallest valid layout).
  // Example 1: 1, 2, 3, 4, 5 — min delta 1, bit width 0, no miniblock data.
  const std::string ex1 = Raw({0x80, 0x01, 0x01, 0x05, 0x02, 0x02, 0x00});
  int32_t out[8];
  size_t consumed;
  ASSERT_OK(DecodeDeltaBinaryPacked(U8(ex1), ex1.size(), 5, out, &consumed));
  EXPECT_EQ(std::vector<int32_t>(out, out + 5), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(consumed, ex1.size());
  // Example 2: 7, 5, 3, 1, 2, 3, 4, 5 — min delta -2, relative deltas 0,0,0,3,3,3,3 on 2 bits,
  // padded to a full miniblock of 128 values (32 bytes).
  std::string ex2 = Raw({0x80, 0x01, 0x01, 0x08, 0x0e, 0x03, 0x02, 0xc0, 0x3f});
  ex2.resize(7 + 32, '\0');
  ex2 += "next";
  ASSERT_OK(DecodeDeltaBinaryPacked(U8(ex2), ex2.size(), 8, out, &consumed));
  EXPECT_EQ(std::vector<int32_t>(out, out + 8), (std::vector<int32_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  EXPECT_EQ(consumed, ex2.size() - 4);

  // And our encoder's layout (blocks of 128 in 4 miniblocks of 32).
  const int32_t values[] = {7, 5, 3, 1, 2, 3, 4, 5};
  std::string encoded;
  EncodeDeltaBinaryPacked(values, 8, &encoded);
  EXPECT_EQ(Hex(encoded), "80 01 04 08 0e 03 02 00 00 00 c0 3f 00 00 00 00 00 00");
}

template <typename T>
void ExpectDeltaRoundTrip(const std::vector<T>& values) {
  std::string bytes;
  EncodeDeltaBinaryPacked(values.data(), values.size(), &bytes);
  const size_t encoded_size = bytes.size();
  bytes += "tail";
  std::vector<T> back(values.size());
  size_t consumed = 0;
  Status st =
      DecodeDeltaBinaryPacked(U8(bytes), bytes.size(), values.size(), back.data(), &consumed);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(back, values);
  EXPECT_EQ(consumed, encoded_size);
}

TEST(DeltaBinaryPackedTest, RoundTripsEveryDeltaWidth) {
  std::mt19937_64 rng(11);
  for (int width = 0; width <= 64; ++width) {
    for (int64_t count : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{33}, int64_t{128},
                          int64_t{129}, int64_t{1000}}) {
      SCOPED_TRACE("width " + std::to_string(width) + " count " + std::to_string(count));
      std::vector<int64_t> values(count);
      uint64_t current = rng();
      for (auto& v : values) {
        const uint64_t delta = width == 64 ? rng() : rng() & ((uint64_t{1} << width) - 1);
        current += delta;  // wraps
        v = static_cast<int64_t>(current);
      }
      ExpectDeltaRoundTrip(values);
      if (width <= 32) {
        std::vector<int32_t> narrow(count);
        uint32_t current32 = static_cast<uint32_t>(rng());
        for (auto& v : narrow) {
          current32 += static_cast<uint32_t>(width == 32 ? rng() : rng() & ((1ull << width) - 1));
          v = static_cast<int32_t>(current32);
        }
        ExpectDeltaRoundTrip(narrow);
      }
    }
  }
}

TEST(DeltaBinaryPackedTest, HandlesOverflowingDeltas) {
  ExpectDeltaRoundTrip<int64_t>({INT64_MIN, INT64_MAX, INT64_MIN, 0, INT64_MAX, -1, INT64_MIN});
  ExpectDeltaRoundTrip<int32_t>({INT32_MIN, INT32_MAX, INT32_MIN, 0, INT32_MAX, -1, INT32_MIN});
  std::vector<int64_t> sorted(5000);
  for (size_t i = 0; i < sorted.size(); ++i) sorted[i] = 1700000000000000 + i * 1000;
  ExpectDeltaRoundTrip(sorted);
}

TEST(DeltaBinaryPackedTest, RejectsMalformedHeaders) {
  int64_t out[16];
  size_t consumed;
  // Block size not a multiple of 128.
  const std::string bad_block = Raw({0x08, 0x01, 0x05, 0x02, 0x02, 0x00});
  ASSERT_STATUS_CODE(kCorruption,
                     DecodeDeltaBinaryPacked(U8(bad_block), bad_block.size(), 5, out, &consumed));
  // 3 miniblocks do not divide 128.
  const std::string bad_mini = Raw({0x80, 0x01, 0x03, 0x05, 0x02, 0x02, 0x00});
  ASSERT_STATUS_CODE(kCorruption,
                     DecodeDeltaBinaryPacked(U8(bad_mini), bad_mini.size(), 5, out, &consumed));
  // A header claiming 2^31 values when the page expects 5: rejected before decoding.
  const std::string huge = Raw({0x80, 0x01, 0x01, 0x80, 0x80, 0x80, 0x80, 0x08, 0x02, 0x02, 0x00});
  Status st = DecodeDeltaBinaryPacked(U8(huge), huge.size(), 5, out, &consumed);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("2147483648"), std::string::npos) << st.ToString();
  // Miniblock bit width 34 for INT32, 65 for INT64 (33 and 64 are valid: see below).
  std::string wide = Raw({0x80, 0x01, 0x01, 0x02, 0x00, 0x00, 34});
  wide.resize(wide.size() + 128 * 34 / 8, '\0');
  int32_t out32[2];
  st = DecodeDeltaBinaryPacked(U8(wide), wide.size(), 2, out32, &consumed);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("bit width 34 exceeds 33 (the most for INT32)"), std::string::npos)
      << st.ToString();
  std::string wide64 = Raw({0x80, 0x01, 0x01, 0x02, 0x00, 0x00, 65});
  wide64.resize(wide64.size() + 1100, '\0');
  st = DecodeDeltaBinaryPacked(U8(wide64), wide64.size(), 2, out, &consumed);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("bit width 65 exceeds 64 (the most for INT64)"), std::string::npos)
      << st.ToString();
  for (int width : {34, 40, 64, 200, 255}) {
    wide[6] = static_cast<char>(width);
    wide.resize(7 + 128 * 8, '\0');
    ASSERT_STATUS_CODE(kCorruption,
                       DecodeDeltaBinaryPacked(U8(wide), wide.size(), 2, out32, &consumed));
  }
}

// ULEB128 and zigzag, written out independently of encoding.cc for hand-built streams.
void AppendUleb(uint64_t v, std::string* out) {
  do {
    out->push_back(static_cast<char>((v & 0x7F) | (v >= 0x80 ? 0x80 : 0)));
    v >>= 7;
  } while (v != 0);
}
uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// One block of 128 values in one miniblock of `width` bits, as a writer that does not wrap
// (DuckDB 1.5) emits them. `relative` are the packed values (delta - min_delta).
std::string OneMiniblockStream(uint64_t count, int64_t first, int64_t min_delta, int width,
                               const std::vector<uint64_t>& relative) {
  std::string s;
  AppendUleb(128, &s);
  AppendUleb(1, &s);
  AppendUleb(count, &s);
  AppendUleb(ZigZag(first), &s);
  AppendUleb(ZigZag(min_delta), &s);
  s.push_back(static_cast<char>(width));
  std::vector<uint64_t> packed(relative);
  packed.resize(128, 0);
  PackBits(packed.data(), 128, width, &s);
  return s;
}

// Encodes INT32 values the way DuckDB does: deltas and min_delta computed in 64 bits without
// wrapping, so a column spanning INT32_MIN..INT32_MAX needs miniblocks of 33 bits.
std::string EncodeDeltaWithoutWrapping(const std::vector<int32_t>& values) {
  std::string s;
  AppendUleb(128, &s);
  AppendUleb(4, &s);
  AppendUleb(values.size(), &s);
  AppendUleb(ZigZag(values.empty() ? 0 : values[0]), &s);
  for (size_t start = 1; start < values.size(); start += 128) {
    const size_t n = std::min<size_t>(128, values.size() - start);
    std::vector<int64_t> deltas(n);
    for (size_t k = 0; k < n; ++k) {
      deltas[k] = int64_t{values[start + k]} - int64_t{values[start + k - 1]};
    }
    const int64_t min_delta = *std::min_element(deltas.begin(), deltas.end());
    std::vector<uint64_t> relative(128, 0);
    for (size_t k = 0; k < n; ++k) relative[k] = static_cast<uint64_t>(deltas[k] - min_delta);
    AppendUleb(ZigZag(min_delta), &s);
    int widths[4];
    for (int m = 0; m < 4; ++m) {
      uint64_t max_value = 0;
      for (size_t k = m * 32; k < std::min<size_t>(n, (m + 1) * 32); ++k) {
        max_value = std::max(max_value, relative[k]);
      }
      widths[m] = BitWidth(max_value);
      s.push_back(static_cast<char>(widths[m]));
    }
    for (int m = 0; m < 4 && static_cast<size_t>(m * 32) < n; ++m) {
      PackBits(relative.data() + m * 32, 32, widths[m], &s);
    }
  }
  return s;
}

TEST(DeltaBinaryPackedTest, ReadsInt32DeltasOf33Bits) {
  // INT32_MIN, INT32_MAX, INT32_MIN byte by byte: first value zigzag(-2^31) = 2^32 - 1; deltas
  // +(2^32 - 1) and -(2^32 - 1), min delta -(2^32 - 1) (zigzag 2^33 - 3), so the relative deltas
  // are 2^33 - 2 and 0: a miniblock of width 33. The values are restored modulo 2^32.
  std::string bytes = Raw({0x80, 0x01, 0x01, 0x03, 0xff, 0xff, 0xff, 0xff, 0x0f,  // header
                           0xfd, 0xff, 0xff, 0xff, 0x1f,                          // min delta
                           33,                                                    // bit width
                           0xfe, 0xff, 0xff, 0xff, 0x01});  // 2^33 - 2, then 0 (33 bits each)
  bytes.resize(15 + 128 * 33 / 8, '\0');
  EXPECT_EQ(bytes, OneMiniblockStream(3, INT32_MIN, -(int64_t{1} << 32) + 1, 33,
                                      {(uint64_t{1} << 33) - 2, 0}));
  int32_t out[3];
  size_t consumed = 0;
  ASSERT_OK(DecodeDeltaBinaryPacked(U8(bytes), bytes.size(), 3, out, &consumed));
  EXPECT_EQ(std::vector<int32_t>(out, out + 3),
            (std::vector<int32_t>{INT32_MIN, INT32_MAX, INT32_MIN}));
  EXPECT_EQ(consumed, bytes.size());
}

TEST(DeltaBinaryPackedTest, ReadsTheFullInt32RangeWrittenWithoutWrapping) {
  std::mt19937 rng(33);
  std::vector<int32_t> alternating, mixed;
  for (int i = 0; i < 1000; ++i) alternating.push_back(i % 2 == 0 ? INT32_MIN : INT32_MAX);
  for (int i = 0; i < 5000; ++i) {
    switch (i % 7) {
      case 0: mixed.push_back(INT32_MIN); break;
      case 1: mixed.push_back(INT32_MAX); break;
      case 2: mixed.push_back(0); break;
      case 3: mixed.push_back(-1); break;
      default: mixed.push_back(static_cast<int32_t>(rng()));
    }
  }
  for (const auto* values : {&alternating, &mixed}) {
    std::string bytes = EncodeDeltaWithoutWrapping(*values);
    ASSERT_NE(bytes.find(static_cast<char>(33)), std::string::npos);
    std::vector<int32_t> back(values->size());
    size_t consumed = 0;
    ASSERT_OK(DecodeDeltaBinaryPacked(U8(bytes), bytes.size(), values->size(), back.data(),
                                      &consumed));
    EXPECT_EQ(back, *values);
    EXPECT_EQ(consumed, bytes.size());
  }
}

TEST(DeltaBinaryPackedTest, ReadsInt64ExtremesWithAMinDeltaOfInt64Min) {
  // INT64_MAX, INT64_MIN, INT64_MAX, -1: deltas modulo 2^64 are 1, -1 and INT64_MIN; min delta
  // INT64_MIN (zigzag 2^64 - 1, a 10-byte varint); relative deltas 2^63 + 1, 2^63 - 1, 0 need 64
  // bits.
  const std::string bytes =
      OneMiniblockStream(4, INT64_MAX, INT64_MIN, 64,
                         {(uint64_t{1} << 63) + 1, (uint64_t{1} << 63) - 1, 0});
  int64_t out[4];
  size_t consumed = 0;
  ASSERT_OK(DecodeDeltaBinaryPacked(U8(bytes), bytes.size(), 4, out, &consumed));
  EXPECT_EQ(std::vector<int64_t>(out, out + 4),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN, INT64_MAX, -1}));
  EXPECT_EQ(consumed, bytes.size());
  // The same values, and INT64 extremes beside 0 and -1, through weir's own (wrapping) encoder.
  ExpectDeltaRoundTrip<int64_t>({INT64_MAX, INT64_MIN, INT64_MAX, -1, 0, INT64_MIN, 1, INT64_MAX});
}

TEST(DeltaBinaryPackedTest, DecodesMiniblocksOfWidth64) {
  // Two values: 0, then 0 + min delta (-1) + 2^64 - 1 (wrapping) = -2.
  std::string bytes = Raw({0x80, 0x01, 0x01, 0x02, 0x00, 0x01, 64});
  bytes.append(8, '\xff');
  bytes.append(127 * 8, '\0');
  int64_t out[2];
  size_t consumed;
  ASSERT_OK(DecodeDeltaBinaryPacked(U8(bytes), bytes.size(), 2, out, &consumed));
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], -2);
  EXPECT_EQ(consumed, bytes.size());
}

TEST(DeltaBinaryPackedTest, EveryTruncationIsCorruptionOrACorrectPrefixDecode) {
  std::vector<int64_t> values(300);
  std::mt19937_64 rng(5);
  for (auto& v : values) v = static_cast<int64_t>(rng() % 100000);
  std::string bytes;
  EncodeDeltaBinaryPacked(values.data(), values.size(), &bytes);
  std::vector<int64_t> back(values.size());
  for (size_t n = 0; n < bytes.size(); ++n) {
    size_t consumed = 0;
    Status st = DecodeDeltaBinaryPacked(U8(bytes), n, values.size(), back.data(), &consumed);
    if (st.ok()) {
      // Only the last miniblock's padding may be missing.
      EXPECT_EQ(back, values) << n;
      EXPECT_EQ(consumed, n);
    } else {
      EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
    }
  }
}

TEST(DeltaBinaryPackedTest, RandomInputNeverCrashes) {
  std::mt19937 rng(17);
  std::vector<int64_t> out(600);
  std::vector<int32_t> out32(600);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bytes = Raw({0x80, 0x01, static_cast<int>(1 + rng() % 4)});
    bytes.push_back(static_cast<char>(rng() % 128));
    const int64_t count = static_cast<uint8_t>(bytes.back());
    const size_t extra = rng() % 200;
    for (size_t k = 0; k < extra; ++k) bytes.push_back(static_cast<char>(rng()));
    size_t consumed;
    (void)DecodeDeltaBinaryPacked(U8(bytes), bytes.size(), count, out.data(), &consumed);
    (void)DecodeDeltaBinaryPacked(U8(bytes), bytes.size(), count, out32.data(), &consumed);
  }
}

// ---------------------------------------------------------------------------------------------
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY

TEST(DeltaByteArrayTest, LengthEncodingMatchesTheSpecExample) {
  const std::vector<std::string_view> values = {"Hello", "World", "Foobar", "ABCDEF"};
  std::string bytes;
  EncodeDeltaLengthByteArray(values.data(), values.size(), &bytes);
  const std::string data = "HelloWorldFoobarABCDEF";
  ASSERT_GT(bytes.size(), data.size());
  EXPECT_EQ(bytes.substr(bytes.size() - data.size()), data);
  int32_t lengths[4];
  size_t consumed;
  ASSERT_OK(DecodeDeltaBinaryPacked(U8(bytes), bytes.size(), 4, lengths, &consumed));
  EXPECT_EQ(std::vector<int32_t>(lengths, lengths + 4), (std::vector<int32_t>{5, 5, 6, 6}));
  EXPECT_EQ(consumed, bytes.size() - data.size());

  std::vector<std::string_view> back(4);
  ASSERT_OK(DecodeDeltaLengthByteArray(U8(bytes), bytes.size(), 4, back.data(), &consumed));
  EXPECT_EQ(back, values);
  EXPECT_EQ(consumed, bytes.size());
  ASSERT_STATUS_CODE(kCorruption, DecodeDeltaLengthByteArray(U8(bytes), bytes.size() - 1, 4,
                                                             back.data(), &consumed));
}

TEST(DeltaByteArrayTest, PrefixEncodingMatchesTheSpecExample) {
  const std::vector<std::string_view> values = {"axis", "axle", "babble", "babyhood"};
  std::string bytes;
  EncodeDeltaByteArray(values.data(), values.size(), &bytes);
  int32_t prefixes[4];
  size_t consumed;
  ASSERT_OK(DecodeDeltaBinaryPacked(U8(bytes), bytes.size(), 4, prefixes, &consumed));
  EXPECT_EQ(std::vector<int32_t>(prefixes, prefixes + 4), (std::vector<int32_t>{0, 2, 0, 3}));
  std::vector<std::string_view> suffixes(4);
  size_t suffix_bytes;
  ASSERT_OK(DecodeDeltaLengthByteArray(U8(bytes) + consumed, bytes.size() - consumed, 4,
                                       suffixes.data(), &suffix_bytes));
  EXPECT_EQ(suffixes, (std::vector<std::string_view>{"axis", "le", "babble", "yhood"}));

  std::string arena = "stale";
  std::vector<std::string_view> back(4);
  ASSERT_OK(DecodeDeltaByteArray(U8(bytes), bytes.size(), 4, &arena, back.data(), &consumed));
  EXPECT_EQ(back, values);
  EXPECT_EQ(consumed, bytes.size());
  EXPECT_EQ(arena, "axisaxlebabblebabyhood");
}

TEST(DeltaByteArrayTest, RoundTripsAndRejectsBadPrefixes) {
  std::vector<std::string> strings;
  std::mt19937 rng(8);
  for (int i = 0; i < 1000; ++i) {
    strings.push_back(i % 10 == 0 ? ""
                                  : "prefix/" + std::to_string(rng() % 100) + "/" +
                                        std::string(rng() % 20, 'x'));
  }
  std::vector<std::string_view> views(strings.begin(), strings.end());
  std::string bytes;
  EncodeDeltaByteArray(views.data(), views.size(), &bytes);
  std::string arena;
  std::vector<std::string_view> back(views.size());
  size_t consumed;
  ASSERT_OK(
      DecodeDeltaByteArray(U8(bytes), bytes.size(), views.size(), &arena, back.data(), &consumed));
  EXPECT_EQ(back, views);
  // An output limit below the values' total size.
  ASSERT_STATUS_CODE(kCorruption, DecodeDeltaByteArray(U8(bytes), bytes.size(), views.size(),
                                                       &arena, back.data(), &consumed, 100));

  // The first value claims a 3-byte prefix of nothing.
  const int32_t bad_prefixes[] = {3, 0};
  std::string bad;
  EncodeDeltaBinaryPacked(bad_prefixes, 2, &bad);
  const std::string_view suffixes[] = {"a", "b"};
  EncodeDeltaLengthByteArray(suffixes, 2, &bad);
  ASSERT_STATUS_CODE(kCorruption,
                     DecodeDeltaByteArray(U8(bad), bad.size(), 2, &arena, back.data(), &consumed));
  // A negative length.
  const int32_t negative[] = {-1};
  std::string neg;
  EncodeDeltaBinaryPacked(negative, 1, &neg);
  ASSERT_STATUS_CODE(kCorruption,
                     DecodeDeltaLengthByteArray(U8(neg), neg.size(), 1, back.data(), &consumed));
}

// ---------------------------------------------------------------------------------------------
// BYTE_STREAM_SPLIT

TEST(ByteStreamSplitTest, MatchesTheSpecExample) {
  const std::string raw =
      Raw({0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x11, 0x22, 0x33, 0xa3, 0xb4, 0xc5, 0xd6});
  std::string split;
  EncodeByteStreamSplit(U8(raw), 3, 4, &split);
  EXPECT_EQ(Hex(split), "aa 00 a3 bb 11 b4 cc 22 c5 dd 33 d6");
  float floats[3];
  size_t consumed;
  ASSERT_OK(DecodeByteStreamSplit(U8(split), split.size(), 3, floats, &consumed));
  EXPECT_EQ(std::memcmp(floats, raw.data(), 12), 0);
  EXPECT_EQ(consumed, 12u);
  ASSERT_STATUS_CODE(kCorruption, DecodeByteStreamSplit(U8(split), 11, 3, floats, &consumed));
}

TEST(ByteStreamSplitTest, RoundTripsEveryWidth) {
  std::mt19937 rng(2);
  for (int width = 1; width <= 17; ++width) {
    for (int64_t count : kCounts) {
      std::string raw(count * width, '\0');
      for (char& c : raw) c = static_cast<char>(rng());
      std::string split;
      EncodeByteStreamSplit(U8(raw), count, width, &split);
      std::string back(raw.size(), '\0');
      size_t consumed;
      ASSERT_OK(DecodeByteStreamSplit(U8(split), split.size(), count, width,
                                      reinterpret_cast<uint8_t*>(back.data()), &consumed));
      EXPECT_EQ(back, raw) << "width " << width << " count " << count;
    }
  }
  const double doubles[] = {1.0, -2.5, 1e300};
  std::string split;
  EncodeByteStreamSplit(reinterpret_cast<const uint8_t*>(doubles), 3, 8, &split);
  double back[3];
  size_t consumed;
  ASSERT_OK(DecodeByteStreamSplit(U8(split), split.size(), 3, back, &consumed));
  EXPECT_EQ(back[2], 1e300);
  int64_t i64[3];
  ASSERT_OK(DecodeByteStreamSplit(U8(split), split.size(), 3, i64, &consumed));
  int32_t i32[6];
  ASSERT_OK(DecodeByteStreamSplit(U8(split), split.size(), 6, i32, &consumed));
}

// ---------------------------------------------------------------------------------------------
// Real files from apache/parquet-testing: uncompressed DataPage v2 files with DELTA encodings,
// decoded and compared with the expected CSVs.


std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using Cell = std::optional<std::string>;  // nullopt = null

// Rows of a CSV with a header line; an unquoted empty field is null.
std::vector<std::vector<Cell>> ReadCsv(const std::string& text) {
  std::vector<std::vector<Cell>> rows;
  size_t pos = text.find('\n') + 1;  // skip the header
  while (pos < text.size()) {
    std::vector<Cell> row;
    for (;;) {
      if (text[pos] == '"') {
        std::string value;
        ++pos;
        while (pos < text.size()) {
          if (text[pos] == '"' && pos + 1 < text.size() && text[pos + 1] == '"') {
            value.push_back('"');
            pos += 2;
          } else if (text[pos] == '"') {
            ++pos;
            break;
          } else {
            value.push_back(text[pos++]);
          }
        }
        row.push_back(value);
      } else {
        const size_t end = text.find_first_of(",\r\n", pos);
        const std::string value = text.substr(pos, end - pos);
        row.push_back(value.empty() ? Cell() : Cell(value));
        pos = end;
      }
      if (pos >= text.size() || text[pos] != ',') break;
      ++pos;
    }
    while (pos < text.size() && (text[pos] == '\r' || text[pos] == '\n')) ++pos;
    rows.push_back(std::move(row));
  }
  return rows;
}

// Decodes one flat column made of uncompressed DataPage v2 pages into strings.
Status DecodeColumn(const std::string& file, const SchemaElement& leaf, const ColumnChunk& chunk,
                    std::vector<Cell>* out) {
  const ColumnMetaData& m = *chunk.meta_data;
  if (m.codec != CompressionCodec::kUncompressed) return Status::NotImplemented("compressed");
  const int max_def = leaf.repetition_type == FieldRepetitionType::kOptional ? 1 : 0;
  const uint8_t* base = U8(file);
  size_t pos = static_cast<size_t>(m.data_page_offset);
  const size_t end = pos + static_cast<size_t>(m.total_compressed_size);
  while (pos < end) {
    PageHeader h;
    size_t header_size;
    WEIR_RETURN_NOT_OK(Parse({base + pos, end - pos}, &h, &header_size));
    pos += header_size;
    if (!h.data_page_header_v2) return Status::NotImplemented("only v2 pages");
    const DataPageHeaderV2& v2 = *h.data_page_header_v2;
    const uint8_t* page = base + pos;
    const size_t def_len = v2.definition_levels_byte_length;
    std::vector<uint16_t> levels(v2.num_values, static_cast<uint16_t>(max_def));
    if (max_def > 0) {
      RleBitPackedDecoder decoder(page + v2.repetition_levels_byte_length, def_len, 1);
      WEIR_RETURN_NOT_OK(decoder.GetBatch(levels.data(), v2.num_values));
    }
    const size_t levels_len = def_len + v2.repetition_levels_byte_length;
    const uint8_t* data = page + levels_len;
    const size_t data_len = h.compressed_page_size - levels_len;
    const int64_t non_null = v2.num_values - v2.num_nulls;
    std::vector<std::string> values(non_null);
    size_t consumed = 0;
    if (v2.encoding == Encoding::kDeltaBinaryPacked && m.type == Type::kInt64) {
      std::vector<int64_t> ints(non_null);
      WEIR_RETURN_NOT_OK(DecodeDeltaBinaryPacked(data, data_len, non_null, ints.data(), &consumed));
      for (int64_t i = 0; i < non_null; ++i) values[i] = std::to_string(ints[i]);
    } else if (v2.encoding == Encoding::kDeltaBinaryPacked && m.type == Type::kInt32) {
      std::vector<int32_t> ints(non_null);
      WEIR_RETURN_NOT_OK(DecodeDeltaBinaryPacked(data, data_len, non_null, ints.data(), &consumed));
      for (int64_t i = 0; i < non_null; ++i) values[i] = std::to_string(ints[i]);
    } else if (v2.encoding == Encoding::kDeltaByteArray) {
      std::string arena;
      std::vector<std::string_view> views(non_null);
      WEIR_RETURN_NOT_OK(
          DecodeDeltaByteArray(data, data_len, non_null, &arena, views.data(), &consumed));
      for (int64_t i = 0; i < non_null; ++i) values[i] = std::string(views[i]);
    } else {
      return Status::NotImplemented("encoding " + std::string(EncodingName(v2.encoding)));
    }
    if (consumed != data_len) {
      return Status::Corruption("decoder consumed " + std::to_string(consumed) + " of " +
                                std::to_string(data_len) + " bytes");
    }
    int64_t next = 0;
    for (uint16_t level : levels) {
      out->push_back(level == max_def ? Cell(values[next++]) : Cell());
    }
    pos += h.compressed_page_size;
  }
  return Status::OK();
}

void ExpectFileMatchesCsv(const std::string& parquet_name, const std::string& csv_name) {
  WEIR_REQUIRE_CONFORMANCE(corpus, "parquet");
  const std::filesystem::path dir = corpus;
  const std::string file = ReadFile(dir / parquet_name);
  const auto rows = ReadCsv(ReadFile(dir / csv_name));
  uint32_t footer_len;
  std::memcpy(&footer_len, file.data() + file.size() - 8, 4);
  FileMetaData meta;
  ASSERT_OK(Parse({U8(file) + file.size() - 8 - footer_len, footer_len}, &meta));
  ASSERT_EQ(static_cast<int64_t>(rows.size()), meta.num_rows);
  int columns = 0;
  for (size_t c = 0; c + 1 < meta.schema.size(); ++c) {
    SCOPED_TRACE(parquet_name + " column " + meta.schema[c + 1].name);
    std::vector<Cell> cells;
    for (const RowGroup& group : meta.row_groups) {
      ASSERT_OK(DecodeColumn(file, meta.schema[c + 1], group.columns[c], &cells));
    }
    ASSERT_EQ(cells.size(), rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      ASSERT_LT(c, rows[r].size());
      ASSERT_EQ(cells[r], rows[r][c]) << "row " << r;
    }
    ++columns;
  }
  EXPECT_EQ(columns + 1, static_cast<int>(meta.schema.size()));
}

TEST(DeltaConformanceTest, DeltaBinaryPackedFile) {
  ExpectFileMatchesCsv("delta_binary_packed.parquet", "delta_binary_packed_expect.csv");
}

TEST(DeltaConformanceTest, DeltaByteArrayFile) {
  ExpectFileMatchesCsv("delta_byte_array.parquet", "delta_byte_array_expect.csv");
}

TEST(DeltaConformanceTest, DeltaEncodingOptionalColumnFile) {
  ExpectFileMatchesCsv("delta_encoding_optional_column.parquet",
                       "delta_encoding_optional_column_expect.csv");
}

}  // namespace
}  // namespace weir::parquet
