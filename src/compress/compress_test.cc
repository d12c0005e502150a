#include "compress/compress.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/testing.h"

namespace weir::compress {
namespace {

constexpr Codec kWorkingCodecs[] = {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip,
                                    Codec::kLz4Hadoop,    Codec::kZstd,   Codec::kLz4Raw};

// Text-like data that compresses well, with some randomness so codecs do real work.
std::string CompressibleData(size_t size, uint32_t seed = 1) {
  static const char* const kWords[] = {"order",    "customer", "amount",  "EUR", "2024-05-01",
                                       "{\"id\":", "status",   "shipped", "\n"};
  std::mt19937 rng(seed);
  std::string data;
  data.reserve(size + 16);
  while (data.size() < size) {
    data += kWords[rng() % 9];
    data += std::to_string(rng() % 1000);
  }
  data.resize(size);
  return data;
}

std::string RandomData(size_t size, uint32_t seed = 2) {
  std::mt19937 rng(seed);
  std::string data(size, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  return data;
}

std::string MustCompress(Codec codec, std::string_view input, int level = kDefaultLevel) {
  std::string out;
  Status status = Compress(codec, level, input, &out);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return out;
}

Result<std::string> DecompressToString(Codec codec, std::string_view input, int64_t size) {
  std::string out(static_cast<size_t>(size), '\0');
  WEIR_RETURN_NOT_OK(Decompress(codec, input, size, reinterpret_cast<uint8_t*>(out.data())));
  return out;
}

std::string BigEndian32(uint32_t v) {
  std::string s(4, '\0');
  s[0] = static_cast<char>(v >> 24);
  s[1] = static_cast<char>(v >> 16);
  s[2] = static_cast<char>(v >> 8);
  s[3] = static_cast<char>(v);
  return s;
}

std::string Lz4RawBlock(std::string_view input) {
  std::string out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(input.size()))), '\0');
  int n = LZ4_compress_default(input.data(), out.data(), static_cast<int>(input.size()),
                               static_cast<int>(out.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

TEST(CompressTest, RoundTripsEveryCodecAtManySizes) {
  const size_t sizes[] = {0, 1, 2, 100, 65536, 261100, 261101, (1 << 20) + 3, 10 << 20};
  for (size_t size : sizes) {
    for (bool compressible : {true, false}) {
      std::string input = compressible ? CompressibleData(size) : RandomData(size);
      for (Codec codec : kWorkingCodecs) {
        SCOPED_TRACE(std::string(CodecName(codec)) + " size " + std::to_string(size) +
                     (compressible ? " text" : " random"));
        std::string compressed = MustCompress(codec, input);
        EXPECT_LE(static_cast<int64_t>(compressed.size()),
                  MaxCompressedSize(codec, static_cast<int64_t>(size)));
        if (compressible && size >= 65536 && codec != Codec::kUncompressed) {
          EXPECT_LT(compressed.size(), input.size() / 2);
        }
        ASSERT_OK_AND_ASSIGN(std::string output,
                             DecompressToString(codec, compressed, static_cast<int64_t>(size)));
        EXPECT_TRUE(output == input);
      }
    }
  }
}

TEST(CompressTest, AppendsToOutputAndReusesItsCapacity) {
  std::string input = CompressibleData(100000);
  for (Codec codec : kWorkingCodecs) {
    SCOPED_TRACE(CodecName(codec));
    std::string out = "prefix";
    out.reserve(static_cast<size_t>(MaxCompressedSize(codec, 100000)) + 16);
    const char* buffer = out.data();
    ASSERT_OK(Compress(codec, kDefaultLevel, input, &out));
    EXPECT_EQ(out.data(), buffer) << "reallocated although capacity sufficed";
    ASSERT_EQ(out.substr(0, 6), "prefix");
    ASSERT_OK_AND_ASSIGN(std::string output,
                         DecompressToString(codec, std::string_view(out).substr(6), 100000));
    EXPECT_TRUE(output == input);
  }
}

TEST(CompressTest, EmptyInputCompressesToAValidCodecStream) {
  // An empty buffer is not valid snappy/zstd input for other readers (parquet-java #3122), so an
  // empty page still gets the codec's encoding of nothing.
  EXPECT_EQ(MustCompress(Codec::kSnappy, ""), std::string(1, '\0'));
  EXPECT_EQ(MustCompress(Codec::kUncompressed, ""), "");
  for (Codec codec : kWorkingCodecs) {
    std::string compressed = MustCompress(codec, "");
    if (codec != Codec::kUncompressed) {
      EXPECT_FALSE(compressed.empty()) << CodecName(codec);
    }
  }
  std::string gzip = MustCompress(Codec::kGzip, "");
  ASSERT_GE(gzip.size(), 2u);
  EXPECT_EQ(static_cast<uint8_t>(gzip[0]), 0x1f);
  EXPECT_EQ(static_cast<uint8_t>(gzip[1]), 0x8b);
}

TEST(CompressTest, ZeroUncompressedSizeNeverCallsTheCodec) {
  for (Codec codec : kWorkingCodecs) {
    SCOPED_TRACE(CodecName(codec));
    // A zero-byte page body (as parquet-java writes for all-null V2 pages) and garbage are both
    // fine.
    EXPECT_OK(Decompress(codec, "", 0, nullptr));
    EXPECT_OK(Decompress(codec, "garbage", 0, nullptr));
  }
}

TEST(CompressTest, EmptyInputForANonEmptyPageIsCorruption) {
  for (Codec codec : kWorkingCodecs) {
    uint8_t out[10];
    Status status = Decompress(codec, "", 10, out);
    ASSERT_STATUS_CODE(kCorruption, status);
    EXPECT_TRUE(status.message().starts_with(std::string(CodecName(codec)) + ":"))
        << status.message();
  }
}

TEST(CompressTest, WrongUncompressedSizeIsCorruption) {
  std::string input = CompressibleData(5000);
  for (Codec codec : kWorkingCodecs) {
    SCOPED_TRACE(CodecName(codec));
    std::string compressed = MustCompress(codec, input);
    for (int64_t size : {int64_t{4999}, int64_t{5001}, int64_t{1}}) {
      Status status = DecompressToString(codec, compressed, size).status();
      ASSERT_STATUS_CODE(kCorruption, status);
      EXPECT_TRUE(status.message().starts_with(std::string(CodecName(codec)) + ":"))
          << status.message();
    }
  }
}

TEST(CompressTest, GarbageAndTruncatedInputAreCorruptionNotCrashes) {
  std::string input = CompressibleData(50000);
  std::mt19937 rng(7);
  for (Codec codec : kWorkingCodecs) {
    if (codec == Codec::kUncompressed) continue;
    SCOPED_TRACE(CodecName(codec));
    std::string compressed = MustCompress(codec, input);
    std::string truncated = compressed.substr(0, compressed.size() / 2);
    ASSERT_STATUS_CODE(kCorruption, DecompressToString(codec, truncated, 50000));
    for (int trial = 0; trial < 50; ++trial) {
      std::string garbage = RandomData(1 + rng() % 2000, static_cast<uint32_t>(trial));
      Result<std::string> result = DecompressToString(codec, garbage, 50000);
      ASSERT_STATUS_CODE(kCorruption, result);
    }
  }
}

TEST(CompressTest, SnappyLengthHeaderMustMatchThePageSize) {
  std::string compressed = MustCompress(Codec::kSnappy, CompressibleData(100));
  Status status = DecompressToString(Codec::kSnappy, compressed, 50).status();
  ASSERT_STATUS_CODE(kCorruption, status);
  EXPECT_NE(status.message().find("100"), std::string::npos) << status.message();
}

TEST(CompressTest, GzipConcatenatedMembersDecodeAsOneStream) {
  std::string a = CompressibleData(70000, 11);
  std::string b = RandomData(3000, 12);
  std::string joined = MustCompress(Codec::kGzip, a) + MustCompress(Codec::kGzip, "") +
                       MustCompress(Codec::kGzip, b, 9);
  ASSERT_OK_AND_ASSIGN(
      std::string output,
      DecompressToString(Codec::kGzip, joined, static_cast<int64_t>(a.size() + b.size())));
  EXPECT_TRUE(output == a + b);
  // A member too many for the page is corruption, not an overflow.
  ASSERT_STATUS_CODE(kCorruption,
                     DecompressToString(Codec::kGzip, joined, static_cast<int64_t>(a.size())));
  // Trailing garbage after a member is corruption.
  ASSERT_STATUS_CODE(kCorruption,
                     DecompressToString(Codec::kGzip, MustCompress(Codec::kGzip, a) + "xyz",
                                        static_cast<int64_t>(a.size())));
}

TEST(CompressTest, GzipLevels) {
  std::string input = CompressibleData(200000);
  std::string fast = MustCompress(Codec::kGzip, input, 1);
  std::string best = MustCompress(Codec::kGzip, input, 9);
  EXPECT_LE(best.size(), fast.size());
  ASSERT_OK_AND_ASSIGN(std::string output, DecompressToString(Codec::kGzip, fast, 200000));
  EXPECT_TRUE(output == input);
  std::string out;
  ASSERT_STATUS_CODE(kInvalidArgument, Compress(Codec::kGzip, 10, input, &out));
  ASSERT_STATUS_CODE(kInvalidArgument, Compress(Codec::kGzip, -2, input, &out));
}

TEST(CompressTest, ZstdLevelsAndDefault) {
  std::string input = CompressibleData(300000);
  EXPECT_EQ(MustCompress(Codec::kZstd, input, kDefaultLevel), MustCompress(Codec::kZstd, input, 1));
  std::string strong = MustCompress(Codec::kZstd, input, 19);
  EXPECT_LT(strong.size(), MustCompress(Codec::kZstd, input, 1).size());
  ASSERT_OK_AND_ASSIGN(std::string output, DecompressToString(Codec::kZstd, strong, 300000));
  EXPECT_TRUE(output == input);
  std::string fast = MustCompress(Codec::kZstd, input, -5);
  ASSERT_OK_AND_ASSIGN(output, DecompressToString(Codec::kZstd, fast, 300000));
  EXPECT_TRUE(output == input);
  std::string out;
  ASSERT_STATUS_CODE(kInvalidArgument, Compress(Codec::kZstd, ZSTD_maxCLevel() + 1, input, &out));
}

TEST(CompressTest, ZstdConcatenatedFramesDecode) {
  std::string a = CompressibleData(1000, 3);
  std::string b = CompressibleData(2000, 4);
  std::string joined = MustCompress(Codec::kZstd, a) + MustCompress(Codec::kZstd, b);
  ASSERT_OK_AND_ASSIGN(std::string output, DecompressToString(Codec::kZstd, joined, 3000));
  EXPECT_TRUE(output == a + b);
}

TEST(CompressTest, ZstdFrameClaimingAHugeSizeIsRejected) {
  // A frame whose header claims 1 GiB, decoded into a 100-byte page: no allocation, no overflow.
  std::string big(1 << 20, 'x');
  std::string compressed = MustCompress(Codec::kZstd, big);
  ASSERT_STATUS_CODE(kCorruption, DecompressToString(Codec::kZstd, compressed, 100));
}

TEST(CompressTest, Lz4HadoopFramingSingleBlock) {
  std::string input = CompressibleData(10000);
  std::string block = Lz4RawBlock(input);
  std::string framed =
      BigEndian32(10000) + BigEndian32(static_cast<uint32_t>(block.size())) + block;
  ASSERT_OK_AND_ASSIGN(std::string output, DecompressToString(Codec::kLz4Hadoop, framed, 10000));
  EXPECT_TRUE(output == input);
}

TEST(CompressTest, Lz4HadoopFramingSeveralBlocksAndChunks) {
  std::string a = CompressibleData(3000, 5);
  std::string b1 = CompressibleData(1000, 6);
  std::string b2 = RandomData(500, 7);
  std::string block_a = Lz4RawBlock(a);
  std::string chunk_b1 = Lz4RawBlock(b1);
  std::string chunk_b2 = Lz4RawBlock(b2);
  // Block 1: one chunk. Block 2: Hadoop's form with two chunks under one uncompressed length.
  std::string framed = BigEndian32(3000) + BigEndian32(static_cast<uint32_t>(block_a.size())) +
                       block_a + BigEndian32(1500) +
                       BigEndian32(static_cast<uint32_t>(chunk_b1.size())) + chunk_b1 +
                       BigEndian32(static_cast<uint32_t>(chunk_b2.size())) + chunk_b2;
  ASSERT_OK_AND_ASSIGN(std::string output, DecompressToString(Codec::kLz4Hadoop, framed, 4500));
  EXPECT_TRUE(output == a + b1 + b2);
}

TEST(CompressTest, Lz4HadoopWritesHadoopSizedBlocks) {
  std::string input = CompressibleData(600000);
  std::string framed = MustCompress(Codec::kLz4Hadoop, input);
  // Walk the frames: each holds at most 261100 input bytes, and they add up to the input.
  size_t pos = 0;
  size_t total = 0;
  int blocks = 0;
  while (pos < framed.size()) {
    ASSERT_LE(pos + 8, framed.size());
    auto load = [&](size_t at) {
      const auto* p = reinterpret_cast<const uint8_t*>(framed.data() + at);
      return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    };
    uint32_t raw = load(pos);
    uint32_t compressed = load(pos + 4);
    EXPECT_LE(raw, 261100u);
    EXPECT_LE(compressed, 262144u);
    total += raw;
    pos += 8 + compressed;
    ++blocks;
  }
  EXPECT_EQ(pos, framed.size());
  EXPECT_EQ(total, input.size());
  EXPECT_EQ(blocks, 3);
}

TEST(CompressTest, Lz4HadoopFallsBackToARawBlock) {
  std::string input = CompressibleData(20000);
  std::string raw = MustCompress(Codec::kLz4Raw, input);
  ASSERT_OK_AND_ASSIGN(std::string output, DecompressToString(Codec::kLz4Hadoop, raw, 20000));
  EXPECT_TRUE(output == input);
}

TEST(CompressTest, Lz4HadoopHostileFrameIsCorruption) {
  // Header claims 1 GiB in a 100-byte page: neither framing nor a raw block fits.
  std::string block = Lz4RawBlock(CompressibleData(100));
  std::string framed =
      BigEndian32(1u << 30) + BigEndian32(static_cast<uint32_t>(block.size())) + block;
  Status status = DecompressToString(Codec::kLz4Hadoop, framed, 100).status();
  ASSERT_STATUS_CODE(kCorruption, status);
  EXPECT_TRUE(status.message().starts_with("lz4:")) << status.message();
  // Compressed length past the end of the input.
  framed = BigEndian32(100) + BigEndian32(1u << 31) + block;
  ASSERT_STATUS_CODE(kCorruption, DecompressToString(Codec::kLz4Hadoop, framed, 100));
}

TEST(CompressTest, Lz4RawRejectsTrailingFramingAndWrongSizes) {
  std::string input = CompressibleData(4000);
  std::string raw = MustCompress(Codec::kLz4Raw, input);
  ASSERT_STATUS_CODE(kCorruption, DecompressToString(Codec::kLz4Raw, raw, 3999));
  ASSERT_STATUS_CODE(kCorruption, DecompressToString(Codec::kLz4Raw, raw, 4001));
}

TEST(CompressTest, BrotliIsNotImplemented) {
  std::string out;
  ASSERT_STATUS_CODE(kNotImplemented, Compress(Codec::kBrotli, kDefaultLevel, "abc", &out));
  uint8_t buffer[3];
  Status status = Decompress(Codec::kBrotli, "abc", 3, buffer);
  ASSERT_STATUS_CODE(kNotImplemented, status);
  EXPECT_NE(status.message().find("brotli"), std::string::npos);
}

TEST(CompressTest, NegativeUncompressedSizeIsInvalid) {
  ASSERT_STATUS_CODE(kInvalidArgument, Decompress(Codec::kSnappy, "x", -1, nullptr));
}

TEST(CompressTest, CodecNamesAreCaseInsensitive) {
  struct Case {
    const char* name;
    Codec codec;
  };
  const Case cases[] = {{"none", Codec::kUncompressed}, {"UNCOMPRESSED", Codec::kUncompressed},
                        {"Snappy", Codec::kSnappy},     {"gzip", Codec::kGzip},
                        {"LZ4", Codec::kLz4Hadoop},     {"lz4_raw", Codec::kLz4Raw},
                        {"LZ4_RAW", Codec::kLz4Raw},    {"zstd", Codec::kZstd},
                        {"ZSTD", Codec::kZstd},         {"brotli", Codec::kBrotli}};
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(Codec codec, CodecFromName(c.name));
    EXPECT_EQ(codec, c.codec) << c.name;
  }
  for (Codec codec : kWorkingCodecs) {
    ASSERT_OK_AND_ASSIGN(Codec back, CodecFromName(CodecName(codec)));
    EXPECT_EQ(back, codec);
  }
  ASSERT_STATUS_CODE(kNotImplemented, CodecFromName("lzo"));
  Result<Codec> unknown = CodecFromName("zip");
  ASSERT_STATUS_CODE(kInvalidArgument, unknown);
  EXPECT_NE(unknown.status().message().find("'zip'"), std::string::npos);
  ASSERT_STATUS_CODE(kInvalidArgument, CodecFromName(""));
  ASSERT_STATUS_CODE(kInvalidArgument, CodecFromName("lz4raw"));
}

TEST(CompressTest, ThreadsUseTheirOwnContexts) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < 30; ++i) {
        std::string input = CompressibleData(20000 + static_cast<size_t>(i) * 100,
                                             static_cast<uint32_t>(t * 100 + i));
        for (Codec codec : {Codec::kZstd, Codec::kGzip}) {
          std::string compressed;
          if (!Compress(codec, kDefaultLevel, input, &compressed).ok()) ++failures[t];
          std::string output(input.size(), '\0');
          if (!Decompress(codec, compressed, static_cast<int64_t>(input.size()),
                          reinterpret_cast<uint8_t*>(output.data()))
                   .ok() ||
              output != input) {
            ++failures[t];
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace weir::compress
