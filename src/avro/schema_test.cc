#include "avro/schema.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::avro {
namespace {

// The Spark DDL of a one-field record whose field has type `type_json`.
std::string FieldDdl(const std::string& type_json) {
  auto schema = ParseSchema(R"({"type":"record","name":"r","fields":[{"name":"f","type":)" +
                            type_json + "}]}");
  if (!schema.ok()) return schema.status().ToString();
  auto spark = ToSparkSchema(*schema);
  if (!spark.ok()) return spark.status().ToString();
  return spark->ToDdl();
}

TEST(AvroSchemaTest, PrimitivesAsSpark) {
  EXPECT_EQ(FieldDdl(R"("boolean")"), "f BOOLEAN NOT NULL");
  EXPECT_EQ(FieldDdl(R"("int")"), "f INT NOT NULL");
  EXPECT_EQ(FieldDdl(R"("long")"), "f BIGINT NOT NULL");
  EXPECT_EQ(FieldDdl(R"("float")"), "f FLOAT NOT NULL");
  EXPECT_EQ(FieldDdl(R"("double")"), "f DOUBLE NOT NULL");
  EXPECT_EQ(FieldDdl(R"("bytes")"), "f BINARY NOT NULL");
  EXPECT_EQ(FieldDdl(R"("string")"), "f STRING NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"string"})"), "f STRING NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"enum","name":"e","symbols":["A","B"]})"), "f STRING NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"fixed","name":"x","size":4})"), "f BINARY NOT NULL");
}

TEST(AvroSchemaTest, LogicalTypesAsSpark) {
  EXPECT_EQ(FieldDdl(R"({"type":"int","logicalType":"date"})"), "f DATE NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"int","logicalType":"time-millis"})"), "f INT NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"long","logicalType":"time-micros"})"), "f BIGINT NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"long","logicalType":"timestamp-millis"})"),
            "f TIMESTAMP NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"long","logicalType":"timestamp-micros"})"),
            "f TIMESTAMP NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"long","logicalType":"local-timestamp-millis"})"),
            "f TIMESTAMP_NTZ NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"long","logicalType":"local-timestamp-micros"})"),
            "f TIMESTAMP_NTZ NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"long","logicalType":"timestamp-nanos"})"), "f BIGINT NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"string","logicalType":"uuid"})"), "f STRING NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})"),
            "f DECIMAL(9,2) NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"bytes","logicalType":"decimal","precision":5})"),
            "f DECIMAL(5,0) NOT NULL");
  EXPECT_EQ(
      FieldDdl(
          R"({"type":"fixed","name":"d","size":16,"logicalType":"decimal","precision":38,"scale":10})"),
      "f DECIMAL(38,10) NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"fixed","name":"d","size":12,"logicalType":"duration"})"),
            "f BINARY NOT NULL");
}

TEST(AvroSchemaTest, InvalidLogicalTypesAreIgnoredAsAvroDoes) {
  // On the wrong base type.
  EXPECT_EQ(FieldDdl(R"({"type":"long","logicalType":"date"})"), "f BIGINT NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"int","logicalType":"timestamp-millis"})"), "f INT NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"string","logicalType":"decimal","precision":4})"),
            "f STRING NOT NULL");
  // Invalid decimals: no precision, scale > precision, negative scale, too many digits for the
  // fixed.
  EXPECT_EQ(FieldDdl(R"({"type":"bytes","logicalType":"decimal"})"), "f BINARY NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"bytes","logicalType":"decimal","precision":2,"scale":3})"),
            "f BINARY NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"bytes","logicalType":"decimal","precision":2,"scale":-1})"),
            "f BINARY NOT NULL");
  EXPECT_EQ(
      FieldDdl(R"({"type":"fixed","name":"d","size":4,"logicalType":"decimal","precision":10})"),
      "f BINARY NOT NULL");
  EXPECT_EQ(
      FieldDdl(R"({"type":"fixed","name":"d","size":4,"logicalType":"decimal","precision":9})"),
      "f DECIMAL(9,0) NOT NULL");
  // A logicalType on the field rather than its type is not the type's.
  auto schema = ParseSchema(
      R"({"type":"record","name":"r","fields":[{"name":"f","type":"long","logicalType":"timestamp-millis"}]})");
  ASSERT_OK(schema.status());
  EXPECT_EQ(ToSparkSchema(*schema)->ToDdl(), "f BIGINT NOT NULL");
}

TEST(AvroSchemaTest, UnionsAsSpark) {
  EXPECT_EQ(FieldDdl(R"(["null","string"])"), "f STRING");
  EXPECT_EQ(FieldDdl(R"(["string","null"])"), "f STRING");
  EXPECT_EQ(FieldDdl(R"(["long"])"), "f BIGINT NOT NULL");
  EXPECT_EQ(FieldDdl(R"(["int","long"])"), "f BIGINT NOT NULL");
  EXPECT_EQ(FieldDdl(R"(["long","null","int"])"), "f BIGINT");
  EXPECT_EQ(FieldDdl(R"(["float","double"])"), "f DOUBLE NOT NULL");
  EXPECT_EQ(FieldDdl(R"(["int","string"])"), "f STRUCT<member0: INT, member1: STRING> NOT NULL");
  EXPECT_EQ(FieldDdl(R"(["null","int","string"])"), "f STRUCT<member0: INT, member1: STRING>");
  EXPECT_EQ(FieldDdl(R"(["int","null","string","bytes"])"),
            "f STRUCT<member0: INT, member1: STRING, member2: BINARY>");
  EXPECT_EQ(FieldDdl(R"(["null",{"type":"array","items":["null","long"]}])"), "f ARRAY<BIGINT>");
  EXPECT_EQ(FieldDdl(R"({"type":"array","items":"long"})"), "f ARRAY<BIGINT> NOT NULL");
  EXPECT_EQ(FieldDdl(R"({"type":"map","values":["null","string"]})"),
            "f MAP<STRING, STRING> NOT NULL");
  // containsNull / valueContainsNull from the items / values.
  auto nullability = [](const std::string& type) {
    auto schema =
        ParseSchema(R"({"type":"record","name":"r","fields":[{"name":"f","type":)" + type + "}]}");
    columnar::TypePtr spark = ToSparkSchema(*schema)->fields[0].type;
    const auto& t = *spark;
    return t.id() == columnar::TypeId::kList ? t.element().nullable : t.value().nullable;
  };
  EXPECT_FALSE(nullability(R"({"type":"array","items":"long"})"));
  EXPECT_TRUE(nullability(R"({"type":"array","items":["null","long"]})"));
  EXPECT_FALSE(nullability(R"({"type":"map","values":"int"})"));
  EXPECT_TRUE(nullability(R"({"type":"map","values":["int","null"]})"));
}

TEST(AvroSchemaTest, NamedTypesNamespacesAndReferences) {
  auto schema = ParseSchema(R"({"type":"record","name":"Outer","namespace":"com.x","fields":[
    {"name":"a","type":{"type":"record","name":"Inner","fields":[{"name":"v","type":"int"}]}},
    {"name":"b","type":"Inner"},
    {"name":"c","type":"com.x.Inner"},
    {"name":"d","type":{"type":"fixed","name":"F","namespace":"other","size":2}},
    {"name":"e","type":"other.F"},
    {"name":"g","type":{"type":"enum","name":"E","symbols":["X"]}},
    {"name":"h","type":["null","E"]}]})");
  ASSERT_OK(schema.status());
  EXPECT_EQ(schema->root().name, "com.x.Outer");
  EXPECT_EQ(schema->root().children[0], schema->root().children[1]);
  EXPECT_EQ(schema->root().children[1], schema->root().children[2]);
  EXPECT_EQ(schema->root().children[3]->name, "other.F");
  auto spark = ToSparkSchema(*schema);
  ASSERT_OK(spark.status());
  EXPECT_EQ(spark->ToDdl(),
            "a STRUCT<v: INT NOT NULL> NOT NULL, b STRUCT<v: INT NOT NULL> NOT NULL, "
            "c STRUCT<v: INT NOT NULL> NOT NULL, d BINARY NOT NULL, e BINARY NOT NULL, g STRING "
            "NOT NULL, h STRING");
}

TEST(AvroSchemaTest, MalformedSchemasAreCorruption) {
  auto check = [](const std::string& json, const std::string& message) {
    auto s = ParseSchema(json);
    ASSERT_FALSE(s.ok()) << json;
    EXPECT_TRUE(s.status().IsCorruption()) << s.status().ToString();
    EXPECT_NE(s.status().message().find(message), std::string::npos) << s.status().ToString();
  };
  check("{", "not JSON");
  check("42", "expected a type name");
  check(R"({"name":"x"})", "no \"type\"");
  check(R"("Nope")", "undefined name 'Nope'");
  check(R"({"type":"record","name":"r"})", "no \"fields\" array");
  check(R"({"type":"record","fields":[]})", "without a \"name\"");
  check(
      R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})",
      "two fields named 'a'");
  check(R"({"type":"record","name":"r","fields":[{"name":"a"}]})", "has no \"type\"");
  check(
      R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"enum","name":"r","symbols":[]}}]})",
      "'r' is defined twice");
  check(R"({"type":"enum","name":"e"})", "no \"symbols\"");
  check(R"({"type":"fixed","name":"f","size":-1})", "needs a \"size\"");
  check(R"({"type":"array"})", "without \"items\"");
  check(R"({"type":"map"})", "without \"values\"");
  check(R"([])", "an empty union");
  check(R"(["int",["string"]])", "a union directly inside a union");
  check(R"(["int","int"])", "lists int twice");
}

TEST(AvroSchemaTest, WhatSparkCannotStoreIsRefused) {
  auto refused = [](const std::string& json, const std::string& message) {
    std::string ddl = FieldDdl(json);
    EXPECT_NE(ddl.find("NotImplemented"), std::string::npos) << ddl;
    EXPECT_NE(ddl.find(message), std::string::npos) << ddl;
  };
  refused(R"("null")", "avro field f: Avro null outside a union is Spark's NullType");
  refused(R"(["null"])", "avro field f: a union of null alone");
  refused(R"({"type":"array","items":"null"})", "avro field f.element: Avro null");
  refused(R"({"type":"bytes","logicalType":"decimal","precision":39})",
          "decimal(39,0) has more than 38 digits");
  refused(R"({"type":"record","name":"empty","fields":[]})", "record 'empty' has no fields");
  refused(R"({"type":"int","spark.sql.catalyst.type":"interval year to month"})",
          "spark.sql.catalyst.type");
  refused(R"({"type":"array","items":{"type":"fixed","name":"z","size":0}})",
          "array items that take no bytes");
  auto recursive =
      ParseSchema(R"({"type":"record","name":"Node","fields":[{"name":"v","type":"int"},
      {"name":"next","type":["null","Node"]}]})");
  ASSERT_OK(recursive.status());
  auto spark = ToSparkSchema(*recursive);
  ASSERT_FALSE(spark.ok());
  EXPECT_EQ(
      spark.status().ToString(),
      "NotImplemented: avro field next: recursive reference to record 'Node', which Spark cannot "
      "process either");
  auto not_record = ParseSchema(R"("long")");
  ASSERT_OK(not_record.status());
  EXPECT_NE(
      ToSparkSchema(*not_record).status().message().find("the Avro schema is long, not a record"),
      std::string::npos);
}

TEST(AvroSchemaTest, DeepAndWideSchemasAreRefusedNotFollowed) {
  std::string deep = R"("int")";
  for (int i = 0; i < 200; ++i) deep = R"({"type":"array","items":)" + deep + "}";
  auto s = ParseSchema(deep);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsNotImplemented()) << s.status().ToString();
  EXPECT_NE(s.status().message().find("nested deeper than"), std::string::npos);

  std::string brackets(100000, '[');
  EXPECT_TRUE(ParseSchema(brackets).status().IsNotImplemented());

  // Named types referenced twice at each of 40 levels: 2^40 Spark types if followed.
  std::string json =
      R"({"type":"record","name":"r","fields":[{"name":"t0","type":{"type":"record","name":"T0","fields":[{"name":"v","type":"int"}]}})";
  std::string inner;
  for (int i = 1; i <= 40; ++i) {
    std::string prev = "T" + std::to_string(i - 1);
    json += R"(,{"name":"t)" + std::to_string(i) + R"(","type":{"type":"record","name":"T)" +
            std::to_string(i) + R"(","fields":[{"name":"a","type":")" + prev +
            R"("},{"name":"b","type":")" + prev + R"("}]}})";
  }
  json += "]}";
  auto wide = ParseSchema(json);
  ASSERT_OK(wide.status());
  auto spark = ToSparkSchema(*wide);
  ASSERT_FALSE(spark.ok());
  EXPECT_TRUE(spark.status().IsNotImplemented()) << spark.status().ToString();
}

}  // namespace
}  // namespace weir::avro
