// Per-file statistics for add.stats (PROTOCOL.md "Per-file Statistics"), in the form Spark writes:
// {"numRecords":N,"minValues":{...},"maxValues":{...},"nullCount":{...}}, nested like the schema.
//  - nullCount for every column among the first `num_indexed_cols` leaves (structs nest; a list or
//    map column counts as one leaf and gets only its null count);
//  - minValues/maxValues for numbers, decimals (JSON numbers with `scale` digits), dates
//    ("YYYY-MM-DD"), timestamps truncated to ms ("...T12:30:00.123Z", timestamp_ntz without Z)
//    and strings cut to 32 characters (min: the prefix; max: the prefix with its last character
//    incremented, or no max when none can be); booleans, binary and all-null columns get none;
//    NaN and infinities get none.
// Min/max come from the Parquet writer's per-leaf statistics; null counts from the batches.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "parquet/writer.h"

namespace weir::delta {

inline constexpr int kStatsStringPrefixLength = 32;

class StatsCollector {
 public:
  // `schema`: the columns stored in the data file (partition columns excluded).
  // `num_indexed_cols`: how many leading leaf columns get statistics (-1: all).
  StatsCollector(const columnar::Schema& schema, int num_indexed_cols);

  // Counts the nulls of a batch written to the file.
  void Update(const columnar::Batch& batch);
  // The stats JSON. REQUIRES: `leaf_stats` from the ParquetWriter that wrote exactly the batches
  // given to Update(), after Close().
  std::string ToJson(int64_t num_records, const std::vector<parquet::LeafStats>& leaf_stats) const;

 private:
  struct Node {
    const columnar::Field* field = nullptr;
    bool indexed = false;
    int first_leaf = 0;        // index of the field's first Parquet leaf
    int64_t null_count = 0;
    std::vector<Node> children;  // struct fields only
  };
  void Build(const columnar::Field& field, Node* node, int* leaf, int* indexed_left);
  static void Count(Node* node, const columnar::Column& column, const std::vector<uint8_t>* parent_null);

  columnar::Schema schema_;
  std::vector<Node> nodes_;
};

// Truncation of a string statistic to `max_chars` UTF-8 characters. Max: nullopt when no upper
// bound of at most that length exists.
std::string TruncateStatsMin(std::string_view s, int max_chars);
std::optional<std::string> TruncateStatsMax(std::string_view s, int max_chars);

}  // namespace weir::delta
