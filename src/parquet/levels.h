// Nested data <-> Parquet definition/repetition levels (the Dremel encoding).
//
// A LevelNode tree mirrors a columnar type with the Parquet levels of each node. Shredding turns a
// Column into, per leaf, def/rep levels plus the row indexes (into the leaf's own flat column) of the
// non-null values; assembly does the reverse from decoded leaves. Both handle struct, list and map
// to any depth, null and empty lists, and null structs (whose children hold nulls). Pure functions
// over caller-owned data; thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "columnar/column.h"

namespace weir::parquet {

struct LevelNode {
  enum class Kind { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  columnar::TypePtr type;
  // Definition level at which this node's value is present (not null). For a required node it
  // equals its parent's present level.
  int16_t def_present = 0;
  // List/map: the definition level at which at least one element exists.
  int16_t def_element = 0;
  // Repetition level of the slots this node fills: the number of lists/maps above it.
  int16_t rep_context = 0;
  // Leaves [leaf_begin, leaf_end) of the file's leaf order lie in this subtree; the first one
  // "owns" this node during assembly (writes its validity and offsets).
  int leaf_begin = 0;
  int leaf_end = 0;
  std::vector<LevelNode> children;  // struct: fields; list: {element}; map: {key, value}

  int16_t max_def() const { return def_present; }  // for a leaf
  int16_t max_rep() const { return rep_context; }  // for a leaf
};

// Builds level nodes for a columnar type in the standard Parquet layout (optional fields add a
// definition level; lists and maps are 3-level groups). `first_leaf` is the index of the subtree's
// first leaf; returns the node with leaf_begin/leaf_end set.
LevelNode BuildLevelNode(const columnar::Field& field, int16_t parent_def, int16_t parent_rep,
                         int first_leaf);

// Levels of one leaf column. `value_rows` are indexes into the leaf's flat Column of the values to
// encode (those with def == max_def), in order.
struct ShreddedLeaf {
  const columnar::Column* values = nullptr;
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  std::vector<int64_t> value_rows;
};

// Shreds rows [begin, end) of `column` (the value of top-level field `node`) into its leaves,
// appending to `leaves[node.leaf_begin .. node.leaf_end)`.
void ShredColumn(const LevelNode& node, const columnar::Column& column, int64_t begin, int64_t end,
                 std::vector<ShreddedLeaf>* leaves);

// Decoded data of one leaf: levels (empty when max_def / max_rep is 0) and the dense non-null
// values as a Column of the leaf's type.
struct DecodedLeaf {
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  columnar::Column values{columnar::DataType::Int32()};
  int64_t num_entries = 0;  // level entries (== values.size() when max_def == 0)
};

// Appends the rows of top-level field `node` assembled from `leaves[node.leaf_begin ..
// node.leaf_end)` to `out`. Corruption when the levels are inconsistent (e.g. more values needed
// than decoded, a repetition level without an open list, leaves disagreeing on the row count).
Status AssembleColumn(const LevelNode& node, const std::vector<DecodedLeaf>& leaves,
                      columnar::Column* out);

}  // namespace weir::parquet
