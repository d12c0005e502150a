#include "parquet/levels.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace weir::parquet {

using columnar::Column;
using columnar::Field;
using columnar::TypeId;

LevelNode BuildLevelNode(const Field& field, int16_t parent_def, int16_t parent_rep,
                         int first_leaf) {
  LevelNode node;
  node.type = field.type;
  node.rep_context = parent_rep;
  node.def_present = static_cast<int16_t>(parent_def + (field.nullable ? 1 : 0));
  node.leaf_begin = first_leaf;
  int next_leaf = first_leaf;
  switch (field.type->id()) {
    case TypeId::kStruct:
      node.kind = LevelNode::Kind::kStruct;
      for (const Field& child : field.type->children()) {
        node.children.push_back(BuildLevelNode(child, node.def_present, parent_rep, next_leaf));
        next_leaf = node.children.back().leaf_end;
      }
      break;
    case TypeId::kList:
    case TypeId::kMap:
      // optional group (LIST|MAP) { repeated group list|key_value { element | key, value } }
      node.kind = field.type->id() == TypeId::kList ? LevelNode::Kind::kList : LevelNode::Kind::kMap;
      node.def_element = static_cast<int16_t>(node.def_present + 1);
      for (const Field& child : field.type->children()) {
        node.children.push_back(
            BuildLevelNode(child, node.def_element, static_cast<int16_t>(parent_rep + 1), next_leaf));
        next_leaf = node.children.back().leaf_end;
      }
      break;
    default:
      node.kind = LevelNode::Kind::kLeaf;
      next_leaf = first_leaf + 1;
      break;
  }
  node.leaf_end = next_leaf;
  return node;
}

// ---------------------------------------------------------------------------------------------
// Shredding

namespace {

void EmitAll(const LevelNode& n, int16_t def, int16_t rep, std::vector<ShreddedLeaf>* leaves) {
  for (int l = n.leaf_begin; l < n.leaf_end; ++l) {
    (*leaves)[l].def.push_back(def);
    (*leaves)[l].rep.push_back(rep);
  }
}

void ShredSlot(const LevelNode& n, const Column& c, int64_t idx, int16_t rep,
               std::vector<ShreddedLeaf>* leaves) {
  if (c.IsNull(idx)) {
    EmitAll(n, static_cast<int16_t>(n.def_present - 1), rep, leaves);
    return;
  }
  switch (n.kind) {
    case LevelNode::Kind::kLeaf: {
      ShreddedLeaf& leaf = (*leaves)[n.leaf_begin];
      leaf.values = &c;
      leaf.def.push_back(n.def_present);
      leaf.rep.push_back(rep);
      leaf.value_rows.push_back(idx);
      return;
    }
    case LevelNode::Kind::kStruct:
      for (size_t i = 0; i < n.children.size(); ++i) {
        ShredSlot(n.children[i], c.child(static_cast<int>(i)), idx, rep, leaves);
      }
      return;
    case LevelNode::Kind::kList:
    case LevelNode::Kind::kMap: {
      int32_t begin = c.offsets()[idx];
      int32_t end = c.offsets()[idx + 1];
      if (begin == end) {
        EmitAll(n, n.def_present, rep, leaves);
        return;
      }
      int16_t element_rep = static_cast<int16_t>(n.rep_context + 1);
      for (int32_t j = begin; j < end; ++j) {
        for (size_t i = 0; i < n.children.size(); ++i) {
          ShredSlot(n.children[i], c.child(static_cast<int>(i)), j, j == begin ? rep : element_rep,
                    leaves);
        }
      }
      return;
    }
  }
}

// Points every leaf of the subtree at its flat column (even when no value is emitted).
void BindLeafColumns(const LevelNode& n, const Column& c, std::vector<ShreddedLeaf>* leaves) {
  if (n.kind == LevelNode::Kind::kLeaf) {
    (*leaves)[n.leaf_begin].values = &c;
    return;
  }
  for (size_t i = 0; i < n.children.size(); ++i) {
    BindLeafColumns(n.children[i], c.child(static_cast<int>(i)), leaves);
  }
}

}  // namespace

void ShredColumn(const LevelNode& node, const Column& column, int64_t begin, int64_t end,
                 std::vector<ShreddedLeaf>* leaves) {
  BindLeafColumns(node, column, leaves);
  if (node.kind == LevelNode::Kind::kLeaf) {
    // Flat fast path: definition levels from the validity bytes, no repetition.
    ShreddedLeaf& leaf = (*leaves)[node.leaf_begin];
    const uint8_t* validity = column.validity();
    if (node.def_present > 0) {
      size_t at = leaf.def.size();
      leaf.def.resize(at + (end - begin));
      for (int64_t i = begin; i < end; ++i) {
        bool valid = validity == nullptr || validity[i];
        leaf.def[at + (i - begin)] = valid ? node.def_present : 0;
        if (valid) leaf.value_rows.push_back(i);
      }
    } else {
      for (int64_t i = begin; i < end; ++i) leaf.value_rows.push_back(i);
    }
    return;
  }
  for (int64_t row = begin; row < end; ++row) ShredSlot(node, column, row, 0, leaves);
}

// ---------------------------------------------------------------------------------------------
// Assembly

namespace {

Status LevelError(const std::string& what) {
  return Status::Corruption("inconsistent definition/repetition levels: " + what);
}

// Appends values [from, from + n) of the dense column `values` to `out`.
void AppendDense(const Column& values, int64_t from, int64_t n, Column* out) {
  if (n <= 0) return;  // an empty source may have no buffer at all
  int width = values.type()->byte_width();
  if (width > 0) {
    auto& fixed = out->fixed_buffer();
    size_t at = fixed.size();
    fixed.resize(at + n * width);
    std::memcpy(fixed.data() + at, values.values<uint8_t>() + from * width, n * width);
  } else {
    auto& strings = out->string_buffer();
    strings.insert(strings.end(), values.strings() + from, values.strings() + from + n);
  }
}

Status AssembleFlat(const LevelNode& node, const DecodedLeaf& leaf, Column* out) {
  out->ShareBuffersFrom(leaf.values);
  const int64_t base = out->size();
  const int64_t n = leaf.num_entries;
  auto& validity = out->validity_buffer();
  if (node.def_present == 0) {
    if (leaf.values.size() != n) return LevelError("value count differs from the row count");
    AppendDense(leaf.values, 0, n, out);
    if (!validity.empty()) validity.resize(base + n, 1);
    out->SetSize(base + n);
    return Status::OK();
  }
  const int16_t max_def = node.def_present;
  int64_t present = 0;
  for (int64_t i = 0; i < n; ++i) present += leaf.def[i] == max_def;
  if (present != leaf.values.size()) {
    return LevelError("definition levels promise " + std::to_string(present) + " values, " +
                      std::to_string(leaf.values.size()) + " decoded");
  }
  if (present == n) {
    AppendDense(leaf.values, 0, n, out);
    if (!validity.empty()) validity.resize(base + n, 1);
    out->SetSize(base + n);
    return Status::OK();
  }
  if (validity.empty()) validity.assign(base, 1);
  validity.resize(base + n);
  int width = node.type->byte_width();
  int64_t v = 0;
  if (width > 0) {
    auto& fixed = out->fixed_buffer();
    size_t at = fixed.size();
    fixed.resize(at + n * width, 0);
    const uint8_t* src = leaf.values.values<uint8_t>();
    for (int64_t i = 0; i < n; ++i) {
      bool valid = leaf.def[i] == max_def;
      validity[base + i] = valid;
      if (valid) std::memcpy(fixed.data() + at + i * width, src + (v++) * width, width);
    }
  } else {
    auto& strings = out->string_buffer();
    for (int64_t i = 0; i < n; ++i) {
      bool valid = leaf.def[i] == max_def;
      validity[base + i] = valid;
      strings.push_back(valid ? leaf.values.StringAt(v++) : std::string_view());
    }
  }
  out->SetSize(base + n);
  return Status::OK();
}

Status AssembleLeafPath(const std::vector<const LevelNode*>& path, const std::vector<Column*>& cols,
                        const DecodedLeaf& leaf, int leaf_index) {
  const LevelNode& leaf_node = *path.back();
  const bool has_def = leaf_node.max_def() > 0;
  const bool has_rep = leaf_node.max_rep() > 0;
  const int depth = static_cast<int>(path.size());
  if ((has_def && static_cast<int64_t>(leaf.def.size()) < leaf.num_entries) ||
      (has_rep && static_cast<int64_t>(leaf.rep.size()) < leaf.num_entries)) {
    return LevelError("fewer levels than entries");
  }
  cols.back()->ShareBuffersFrom(leaf.values);
  int64_t v = 0;
  for (int64_t i = 0; i < leaf.num_entries; ++i) {
    const int16_t d = has_def ? leaf.def[i] : leaf_node.max_def();
    const int16_t r = has_rep ? leaf.rep[i] : 0;
    if (d > leaf_node.max_def() || d < 0 || r > leaf_node.max_rep() || r < 0) {
      return LevelError("level out of range at entry " + std::to_string(i));
    }
    if (i == 0 && r != 0) return LevelError("the first entry repeats a previous row");
    bool null_above = false;
    for (int k = 0; k < depth; ++k) {
      const LevelNode& n = *path[k];
      Column* c = cols[k];
      const bool owner = n.leaf_begin == leaf_index;
      const bool nested = n.kind == LevelNode::Kind::kList || n.kind == LevelNode::Kind::kMap;
      if (r > n.rep_context) {
        // Continues an open slot of n; a list/map below may open a new element.
        if (n.kind == LevelNode::Kind::kLeaf) return LevelError("repetition below a leaf");
        if (nested && owner && r <= path[k + 1]->rep_context) {
          if (c->size() == 0) return LevelError("repetition without an open list");
          c->offsets_buffer().back()++;
        }
        continue;
      }
      if (null_above || d < n.def_present) {
        if (owner || n.kind == LevelNode::Kind::kLeaf) c->AppendNullShallow();
        if (nested) break;
        null_above = true;
        continue;
      }
      if (n.kind == LevelNode::Kind::kLeaf) {
        if (v >= leaf.values.size()) return LevelError("more values needed than decoded");
        c->AppendFrom(leaf.values, v++);
        break;
      }
      if (n.kind == LevelNode::Kind::kStruct) {
        if (owner) c->AppendStructEntry();
        continue;
      }
      if (owner) c->AppendListEntry();
      if (d < n.def_element) break;  // an empty list or map
      if (owner) c->offsets_buffer().back()++;
    }
  }
  if (v != leaf.values.size()) return LevelError("more values decoded than levels use");
  return Status::OK();
}

Status CheckConsistent(const Column& c) {
  switch (c.type_id()) {
    case TypeId::kStruct:
      for (int i = 0; i < c.num_children(); ++i) {
        if (c.child(i).size() != c.size()) {
          return LevelError("struct field " + c.type()->children()[i].name + " has " +
                            std::to_string(c.child(i).size()) + " values for " +
                            std::to_string(c.size()) + " rows");
        }
        WEIR_RETURN_NOT_OK(CheckConsistent(c.child(i)));
      }
      return Status::OK();
    case TypeId::kList:
    case TypeId::kMap:
      for (int i = 0; i < c.num_children(); ++i) {
        if (c.child(i).size() != c.offsets()[c.size()]) {
          return LevelError("list has " + std::to_string(c.offsets()[c.size()]) + " elements, " +
                            std::to_string(c.child(i).size()) + " assembled");
        }
        WEIR_RETURN_NOT_OK(CheckConsistent(c.child(i)));
      }
      return Status::OK();
    default:
      return Status::OK();
  }
}

}  // namespace

Status AssembleColumn(const LevelNode& node, const std::vector<DecodedLeaf>& leaves, Column* out) {
  if (node.kind == LevelNode::Kind::kLeaf) return AssembleFlat(node, leaves[node.leaf_begin], out);
  for (int l = node.leaf_begin; l < node.leaf_end; ++l) {
    std::vector<const LevelNode*> path;
    std::vector<Column*> cols;
    const LevelNode* n = &node;
    Column* c = out;
    while (true) {
      path.push_back(n);
      cols.push_back(c);
      if (n->kind == LevelNode::Kind::kLeaf) break;
      size_t i = 0;
      while (i < n->children.size() && !(l >= n->children[i].leaf_begin && l < n->children[i].leaf_end)) ++i;
      if (i == n->children.size()) return Status::Internal("leaf outside its level tree");
      n = &n->children[i];
      c = &c->mutable_child(static_cast<int>(i));
    }
    WEIR_RETURN_NOT_OK(AssembleLeafPath(path, cols, leaves[l], l));
  }
  return CheckConsistent(*out);
}

}  // namespace weir::parquet
