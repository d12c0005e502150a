#include "parquet/thrift_compact.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "base/testing.h"

namespace weir::parquet {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
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

std::string Raw(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

TEST(ThriftCompactWriterTest, WritesTheSpecifiedBytes) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.StructBegin();
  w.FieldI32(1, 1);        // delta 1, type i32 (5); zigzag(1) = 2
  w.FieldBool(2, true);    // delta 1, type bool-true (1)
  w.FieldBinary(3, "ab");  // delta 1, type binary (8), length 2
  w.FieldI64(20, -1);      // delta 17 > 15: long form, type i64 (6), zigzag id 40, zigzag(-1) = 1
  w.FieldBool(21, false);  // delta 1, type bool-false (2)
  w.FieldI32(22, 300);     // zigzag(300) = 600 = 0xd8 0x04
  w.StructEnd();
  EXPECT_EQ(Hex(out), "15 02 11 18 02 61 62 06 28 01 12 15 d8 04 00");
}

TEST(ThriftCompactWriterTest, ListHeadersUseTheLongFormFromFifteenElements) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.ListBegin(ThriftType::kI32, 14);
  w.ListBegin(ThriftType::kI32, 15);
  w.ListBegin(ThriftType::kStruct, 300);
  w.MapBegin(ThriftType::kBinary, ThriftType::kI64, 0);
  w.MapBegin(ThriftType::kBinary, ThriftType::kI64, 2);
  EXPECT_EQ(Hex(out), "e5 f5 0f fc ac 02 00 02 86");
}

TEST(ThriftCompactTest, RoundTripsEveryType) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.StructBegin();
  w.FieldBool(1, true);
  w.FieldBool(2, false);
  w.FieldI8(3, -7);
  w.FieldI16(4, -32768);
  w.FieldI32(5, INT32_MIN);
  w.FieldI64(6, INT64_MAX);
  w.FieldDouble(7, -2.5);
  w.FieldBinary(8, std::string("x\0y", 3));
  w.FieldListBegin(9, ThriftType::kBool, 3);
  w.Bool(true);
  w.Bool(false);
  w.Bool(true);
  w.FieldStructBegin(10);
  w.FieldI64(1, 42);
  w.StructEnd();
  w.FieldListBegin(300, ThriftType::kI64, 20);
  for (int i = 0; i < 20; ++i) w.I64(int64_t{1} << (i * 3));
  w.FieldI32(11, 99);  // lower id than the previous field: long form
  w.StructEnd();

  ThriftCompactReader r(Bytes(out));
  ASSERT_OK(r.StructBegin());
  ThriftType type;
  int16_t id;
  bool b;
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kBool);
  EXPECT_EQ(id, 1);
  ASSERT_OK(r.ReadBool(&b));
  EXPECT_TRUE(b);
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(id, 2);
  ASSERT_OK(r.ReadBool(&b));
  EXPECT_FALSE(b);
  int8_t i8;
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kByte);
  ASSERT_OK(r.ReadI8(&i8));
  EXPECT_EQ(i8, -7);
  int16_t i16;
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kI16);
  ASSERT_OK(r.ReadI16(&i16));
  EXPECT_EQ(i16, -32768);
  int32_t i32;
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kI32);
  ASSERT_OK(r.ReadI32(&i32));
  EXPECT_EQ(i32, INT32_MIN);
  int64_t i64;
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kI64);
  ASSERT_OK(r.ReadI64(&i64));
  EXPECT_EQ(i64, INT64_MAX);
  double d;
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kDouble);
  ASSERT_OK(r.ReadDouble(&d));
  EXPECT_EQ(d, -2.5);
  std::string_view bin;
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kBinary);
  ASSERT_OK(r.ReadBinary(&bin));
  EXPECT_EQ(bin, std::string_view("x\0y", 3));
  ThriftType element;
  uint32_t size;
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kList);
  ASSERT_OK(r.ListBegin(&element, &size));
  EXPECT_EQ(element, ThriftType::kBool);
  ASSERT_EQ(size, 3u);
  bool bools[3];
  for (bool& v : bools) ASSERT_OK(r.ReadBool(&v));
  ASSERT_OK(r.ListEnd());
  EXPECT_TRUE(bools[0]);
  EXPECT_FALSE(bools[1]);
  EXPECT_TRUE(bools[2]);
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kStruct);
  EXPECT_EQ(id, 10);
  ASSERT_OK(r.StructBegin());
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(id, 1);  // field ids restart inside a nested struct
  ASSERT_OK(r.ReadI64(&i64));
  EXPECT_EQ(i64, 42);
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kStop);
  ASSERT_OK(r.StructEnd());
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(id, 300);  // and resume after it
  ASSERT_OK(r.ListBegin(&element, &size));
  EXPECT_EQ(element, ThriftType::kI64);
  ASSERT_EQ(size, 20u);
  for (int i = 0; i < 20; ++i) {
    ASSERT_OK(r.ReadI64(&i64));
    EXPECT_EQ(i64, int64_t{1} << (i * 3));
  }
  ASSERT_OK(r.ListEnd());
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(id, 11);
  ASSERT_OK(r.ReadI32(&i32));
  EXPECT_EQ(i32, 99);
  ASSERT_OK(r.FieldBegin(&type, &id));
  EXPECT_EQ(type, ThriftType::kStop);
  ASSERT_OK(r.StructEnd());
  EXPECT_EQ(r.position(), out.size());
}

// A struct holding one value of every kind, nested, followed by field 99 = 7.
std::string StructWithEverythingThenField99() {
  std::string out;
  ThriftCompactWriter w(&out);
  w.StructBegin();
  w.FieldBool(1, true);
  w.FieldI8(2, 1);
  w.FieldI16(3, 2);
  w.FieldI32(4, 3);
  w.FieldI64(5, 4);
  w.FieldDouble(6, 5.0);
  w.FieldBinary(7, "seven");
  w.FieldListBegin(8, ThriftType::kStruct, 2);
  for (int i = 0; i < 2; ++i) {
    w.StructBegin();
    w.FieldBool(1, false);
    w.FieldListBegin(2, ThriftType::kList, 1);
    w.ListBegin(ThriftType::kDouble, 2);
    w.Double(1);
    w.Double(2);
    w.StructEnd();
  }
  // map<binary, set<bool>>
  w.FieldStructBegin(9);
  w.FieldStructBegin(1);
  w.StructEnd();
  w.StructEnd();
  out.push_back(static_cast<char>(0x0B | (1 << 4)));  // field 10: map
  w.MapBegin(ThriftType::kBinary, ThriftType::kSet, 2);
  for (int i = 0; i < 2; ++i) {
    w.Binary("k");
    w.ListBegin(ThriftType::kBool, 2);
    w.Bool(true);
    w.Bool(false);
  }
  out.push_back(static_cast<char>(0x0B));  // field 11 in long form: an empty map
  out.push_back(22);
  w.MapBegin(ThriftType::kI32, ThriftType::kI32, 0);
  out.push_back(static_cast<char>(0x0A));  // field 12 in long form: set<i32> {5}
  out.push_back(24);
  w.ListBegin(ThriftType::kI32, 1);
  w.I32(5);
  out.push_back(static_cast<char>(0x05));  // field 99: i32 7
  out.push_back(static_cast<char>(198));
  out.push_back(1);
  w.I32(7);
  w.StructEnd();
  return out;
}

TEST(ThriftCompactReaderTest, SkipsUnknownFieldsOfEveryType) {
  const std::string bytes = StructWithEverythingThenField99();
  ThriftCompactReader r(Bytes(bytes));
  ASSERT_OK(r.StructBegin());
  int32_t field99 = 0;
  int fields = 0;
  for (;;) {
    ThriftType type;
    int16_t id;
    ASSERT_OK(r.FieldBegin(&type, &id));
    if (type == ThriftType::kStop) break;
    ++fields;
    if (id == 99) {
      ASSERT_OK(r.ReadI32(&field99));
    } else {
      SCOPED_TRACE("field " + std::to_string(id));
      ASSERT_OK(r.Skip(type));
    }
  }
  ASSERT_OK(r.StructEnd());
  EXPECT_EQ(fields, 13);
  EXPECT_EQ(field99, 7);
  EXPECT_EQ(r.position(), bytes.size());
}

TEST(ThriftCompactReaderTest, ReportsBytesConsumedBeforeTrailingData) {
  std::string bytes;
  ThriftCompactWriter w(&bytes);
  w.StructBegin();
  w.FieldI32(1, 5);
  w.StructEnd();
  const size_t struct_size = bytes.size();
  bytes += "page data";
  ThriftCompactReader r(Bytes(bytes));
  ASSERT_OK(r.Skip(ThriftType::kStruct));
  EXPECT_EQ(r.position(), struct_size);
}

TEST(ThriftCompactReaderTest, TruncatedVarintIsCorruptionNamingTheOffset) {
  const std::string bytes = Raw({0x15, 0x80, 0x80});
  ThriftCompactReader r(Bytes(bytes));
  ASSERT_OK(r.StructBegin());
  ThriftType type;
  int16_t id;
  ASSERT_OK(r.FieldBegin(&type, &id));
  int32_t v;
  Status st = r.ReadI32(&v);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("truncated varint"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("at byte 1"), std::string::npos) << st.ToString();
}

TEST(ThriftCompactReaderTest, OverlongVarintsAreCorruption) {
  const std::string eleven =
      Raw({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  ThriftCompactReader r1(Bytes(eleven));
  int64_t v64;
  ASSERT_STATUS_CODE(kCorruption, r1.ReadI64(&v64));
  // A 10th byte may hold only bit 63.
  const std::string ten = Raw({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02});
  ThriftCompactReader r2(Bytes(ten));
  ASSERT_STATUS_CODE(kCorruption, r2.ReadI64(&v64));
  const std::string max = Raw({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  ThriftCompactReader r3(Bytes(max));
  ASSERT_OK(r3.ReadI64(&v64));
  EXPECT_EQ(v64, INT64_MAX);
  // An i32 whose zigzag value needs more than 32 bits.
  const std::string wide = Raw({0xff, 0xff, 0xff, 0xff, 0x1f});
  ThriftCompactReader r4(Bytes(wide));
  int32_t v32;
  ASSERT_STATUS_CODE(kCorruption, r4.ReadI32(&v32));
}

TEST(ThriftCompactReaderTest, SizesBeyondTheInputAreRejectedBeforeAllocating) {
  // list<i32> claiming 1,000,000 elements with 3 bytes left.
  const std::string list = Raw({0xf5, 0xc0, 0x84, 0x3d, 1, 2, 3});
  ThriftCompactReader r1(Bytes(list));
  ThriftType element;
  uint32_t size;
  Status st = r1.ListBegin(&element, &size);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("list size 1000000"), std::string::npos) << st.ToString();

  const std::string binary = Raw({0x0a, 'a', 'b'});  // length 10, 2 bytes left
  ThriftCompactReader r2(Bytes(binary));
  std::string_view view;
  ASSERT_STATUS_CODE(kCorruption, r2.ReadBinary(&view));

  const std::string map = Raw({0x05, 0x55, 1, 2, 3, 4});  // 5 entries need >= 10 bytes
  ThriftCompactReader r3(Bytes(map));
  ThriftType key, value;
  ASSERT_STATUS_CODE(kCorruption, r3.MapBegin(&key, &value, &size));
}

TEST(ThriftCompactReaderTest, InvalidTypeCodesAreCorruption) {
  for (int code : {13, 14, 15}) {
    const std::string bytes = Raw({0x10 | code, 0});
    ThriftCompactReader r(Bytes(bytes));
    ASSERT_OK(r.StructBegin());
    ThriftType type;
    int16_t id;
    ASSERT_STATUS_CODE(kCorruption, r.FieldBegin(&type, &id));
  }
  // A list of 2 elements of type 0.
  const std::string list = Raw({0x20, 1, 1});
  ThriftCompactReader r(Bytes(list));
  ThriftType element;
  uint32_t size;
  ASSERT_STATUS_CODE(kCorruption, r.ListBegin(&element, &size));
}

TEST(ThriftCompactReaderTest, BoolListElementsAcceptZeroOneAndTwo) {
  const std::string bytes = Raw({0x41, 1, 0, 2, 3});
  ThriftCompactReader r(Bytes(bytes));
  ThriftType element;
  uint32_t size;
  ASSERT_OK(r.ListBegin(&element, &size));
  ASSERT_EQ(size, 4u);
  bool v;
  ASSERT_OK(r.ReadBool(&v));
  EXPECT_TRUE(v);
  ASSERT_OK(r.ReadBool(&v));
  EXPECT_FALSE(v);
  ASSERT_OK(r.ReadBool(&v));
  EXPECT_FALSE(v);
  ASSERT_STATUS_CODE(kCorruption, r.ReadBool(&v));
}

std::string NestedStructs(int depth) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.StructBegin();
  for (int i = 1; i < depth; ++i) w.FieldStructBegin(1);
  for (int i = 0; i < depth; ++i) w.StructEnd();
  return out;
}

TEST(ThriftCompactReaderTest, NestingIsLimited) {
  const std::string ok = NestedStructs(kMaxThriftDepth);
  ThriftCompactReader r1(Bytes(ok));
  ASSERT_OK(r1.Skip(ThriftType::kStruct));
  EXPECT_EQ(r1.position(), ok.size());

  const std::string deep = NestedStructs(kMaxThriftDepth + 1);
  ThriftCompactReader r2(Bytes(deep));
  Status st = r2.Skip(ThriftType::kStruct);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("nesting"), std::string::npos) << st.ToString();

  // Lists count too: 10,000 nested list headers must not recurse 10,000 deep.
  std::string lists(10000, static_cast<char>(0x19));  // list of 1 list
  ThriftCompactReader r3(Bytes(lists));
  ASSERT_STATUS_CODE(kCorruption, r3.Skip(ThriftType::kList));
}

TEST(ThriftCompactReaderTest, EveryTruncationOfAValidStructIsCorruption) {
  const std::string bytes = StructWithEverythingThenField99();
  for (size_t n = 0; n < bytes.size(); ++n) {
    SCOPED_TRACE("prefix of " + std::to_string(n) + " bytes");
    const std::string prefix = bytes.substr(0, n);
    ThriftCompactReader r(Bytes(prefix));
    ASSERT_STATUS_CODE(kCorruption, r.Skip(ThriftType::kStruct));
  }
}

TEST(ThriftCompactReaderTest, RandomBytesNeverCrash) {
  uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  int ok = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bytes(next() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(next());
    ThriftCompactReader r(Bytes(bytes));
    if (r.Skip(ThriftType::kStruct).ok()) {
      ++ok;
      EXPECT_LE(r.position(), bytes.size());
    }
  }
  EXPECT_GT(ok, 0);  // some random inputs are valid structs (e.g. a leading stop byte)
}

}  // namespace
}  // namespace weir::parquet
