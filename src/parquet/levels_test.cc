#include "parquet/levels.h"

#include <gtest/gtest.h>

#include <random>

#include "base/testing.h"
#include "columnar/json_lines.h"

namespace weir::parquet {
namespace {

using columnar::Column;
using columnar::DataType;
using columnar::Field;
using columnar::TypeId;
using columnar::TypePtr;

// Builds the decoded form a reader would produce from shredded leaves.
std::vector<DecodedLeaf> ToDecoded(const LevelNode& node, const std::vector<ShreddedLeaf>& shredded,
                                   std::vector<TypePtr> leaf_types) {
  std::vector<DecodedLeaf> out(shredded.size());
  for (size_t l = 0; l < shredded.size(); ++l) {
    out[l].def = shredded[l].def;
    out[l].rep = shredded[l].rep;
    out[l].values = Column(leaf_types[l]);
    for (int64_t row : shredded[l].value_rows) out[l].values.AppendFrom(*shredded[l].values, row);
    out[l].num_entries = std::max<int64_t>(shredded[l].def.size(), shredded[l].value_rows.size());
  }
  return out;
}

void CollectLeafTypes(const LevelNode& n, std::vector<TypePtr>* out) {
  if (n.kind == LevelNode::Kind::kLeaf) out->push_back(n.type);
  for (const auto& c : n.children) CollectLeafTypes(c, out);
}

std::string ToJson(const Column& c) {
  std::string out;
  for (int64_t i = 0; i < c.size(); ++i) {
    columnar::AppendJsonValue(c, i, &out);
    out += "\n";
  }
  return out;
}

TEST(LevelsTest, OptionalListOfOptionalInts) {
  Field f{"l", DataType::List(DataType::Int32()), true};
  LevelNode node = BuildLevelNode(f, 0, 0, 0);
  EXPECT_EQ(node.def_present, 1);
  EXPECT_EQ(node.def_element, 2);
  EXPECT_EQ(node.children[0].def_present, 3);
  EXPECT_EQ(node.children[0].rep_context, 1);
  Column c(f.type);
  c.mutable_child(0).Append<int32_t>(1);
  c.mutable_child(0).Append<int32_t>(2);
  c.AppendListEntry();                  // [1,2]
  c.AppendNull();                       // null
  c.AppendListEntry();                  // []
  c.mutable_child(0).AppendNull();
  c.AppendListEntry();                  // [null]
  std::vector<ShreddedLeaf> leaves(1);
  ShredColumn(node, c, 0, c.size(), &leaves);
  EXPECT_EQ(leaves[0].def, (std::vector<int16_t>{3, 3, 0, 1, 2}));
  EXPECT_EQ(leaves[0].rep, (std::vector<int16_t>{0, 1, 0, 0, 0}));
  EXPECT_EQ(leaves[0].value_rows, (std::vector<int64_t>{0, 1}));

  auto decoded = ToDecoded(node, leaves, {DataType::Int32()});
  Column back(f.type);
  ASSERT_OK(AssembleColumn(node, decoded, &back));
  EXPECT_EQ(ToJson(back), "[1,2]\nnull\n[]\n[null]\n");
}

TEST(LevelsTest, RejectsInconsistentLevels) {
  Field f{"l", DataType::List(DataType::Int32()), true};
  LevelNode node = BuildLevelNode(f, 0, 0, 0);
  std::vector<DecodedLeaf> leaves(1);
  leaves[0].values = Column(DataType::Int32());
  leaves[0].def = {3, 3};
  leaves[0].rep = {1, 0};  // first entry cannot repeat
  leaves[0].num_entries = 2;
  leaves[0].values.Append<int32_t>(1);
  leaves[0].values.Append<int32_t>(2);
  Column out(f.type);
  ASSERT_STATUS_CODE(kCorruption, AssembleColumn(node, leaves, &out));
  leaves[0].rep = {0, 1};
  leaves[0].def = {3, 3};
  leaves[0].values.Clear();  // values missing
  Column out2(f.type);
  ASSERT_STATUS_CODE(kCorruption, AssembleColumn(node, leaves, &out2));
}

// Random values of any type, nested to any depth.
class RandomData {
 public:
  explicit RandomData(uint32_t seed) : rng_(seed) {}
  void Append(const Field& f, Column* c) {
    if (f.nullable && Chance(0.2)) {
      c->AppendNull();
      return;
    }
    switch (f.type->id()) {
      case TypeId::kInt32: c->Append<int32_t>(static_cast<int32_t>(rng_() % 1000)); return;
      case TypeId::kString: c->AppendString(std::string(rng_() % 5, 'a' + rng_() % 26)); return;
      case TypeId::kStruct:
        for (size_t i = 0; i < f.type->children().size(); ++i) {
          Append(f.type->children()[i], &c->mutable_child(static_cast<int>(i)));
        }
        c->AppendStructEntry();
        return;
      case TypeId::kList:
      case TypeId::kMap: {
        int n = rng_() % 4;
        for (int j = 0; j < n; ++j) {
          for (size_t i = 0; i < f.type->children().size(); ++i) {
            Append(f.type->children()[i], &c->mutable_child(static_cast<int>(i)));
          }
        }
        c->AppendListEntry();
        return;
      }
      default: FAIL() << "type not generated";
    }
  }

 private:
  bool Chance(double p) { return (rng_() % 1000) < p * 1000; }
  std::mt19937 rng_;
};

TEST(LevelsTest, RandomNestedRoundTrips) {
  const char* types[] = {
      "INT",
      "ARRAY<STRING>",
      "STRUCT<a: INT, b: ARRAY<INT>, c: STRUCT<d: STRING, e: ARRAY<ARRAY<INT>>>>",
      "MAP<STRING, ARRAY<STRUCT<x: INT, y: STRING>>>",
      "ARRAY<MAP<STRING, INT>>",
      "STRUCT<s: STRUCT<t: INT>>",
  };
  for (const char* ddl : types) {
    for (bool nullable : {true, false}) {
      ASSERT_OK_AND_ASSIGN(TypePtr type, columnar::ParseDdlType(ddl));
      Field f{"f", type, nullable};
      LevelNode node = BuildLevelNode(f, 0, 0, 0);
      Column c(type);
      RandomData gen(42);
      for (int row = 0; row < 300; ++row) gen.Append(f, &c);
      std::vector<TypePtr> leaf_types;
      CollectLeafTypes(node, &leaf_types);
      std::vector<ShreddedLeaf> shredded(leaf_types.size());
      // Shred in two chunks to exercise ranges.
      ShredColumn(node, c, 0, 120, &shredded);
      ShredColumn(node, c, 120, c.size(), &shredded);
      auto decoded = ToDecoded(node, shredded, leaf_types);
      Column back(type);
      ASSERT_OK(AssembleColumn(node, decoded, &back));
      ASSERT_EQ(back.size(), c.size()) << ddl;
      EXPECT_EQ(ToJson(back), ToJson(c)) << ddl << " nullable=" << nullable;
    }
  }
}

}  // namespace
}  // namespace weir::parquet
