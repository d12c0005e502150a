// Delta log actions (PROTOCOL.md "Actions") as plain structs, and their newline-delimited JSON form.
// Parsing is strict about what the protocol requires (a malformed line or a missing required field
// is Corruption naming the file and line) and lenient about the rest: unknown actions and fields
// are ignored, as the protocol demands. Serialization writes one action per line in the field
// order Spark uses. Pure functions and value types; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"

namespace weir::delta {

using StringMap = std::map<std::string, std::string>;
// Partition column -> serialized value; std::nullopt is a null partition value.
using PartitionValues = std::map<std::string, std::optional<std::string>>;

struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  // Present only for reader version 3 / writer version 7.
  std::optional<std::vector<std::string>> reader_features;
  std::optional<std::vector<std::string>> writer_features;
};

struct Format {
  std::string provider = "parquet";
  StringMap options;
};

struct Metadata {
  std::string id;  // a GUID
  std::optional<std::string> name;
  std::optional<std::string> description;
  Format format;
  std::string schema_string;  // Spark StructType JSON
  std::vector<std::string> partition_columns;
  StringMap configuration;
  std::optional<int64_t> created_time;  // ms since the epoch
};

struct DeletionVectorDescriptor {
  std::string storage_type;  // "u", "i" or "p"
  std::string path_or_inline_dv;
  std::optional<int32_t> offset;
  int32_t size_in_bytes = 0;
  int64_t cardinality = 0;

  // "<storageType><pathOrInlineDv>[@<offset>]": with the path, the logical file's identity.
  std::string UniqueId() const;
};

struct AddFile {
  std::string path;  // URI-encoded, relative to the table root (or an absolute URI)
  PartitionValues partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string> stats;  // JSON text
  std::optional<StringMap> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;

  // numRecords from `stats`, if present and parseable.
  std::optional<int64_t> NumRecords() const;
};

struct RemoveFile {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<PartitionValues> partition_values;
  std::optional<int64_t> size;
  std::optional<std::string> stats;
  std::optional<StringMap> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
};

// A transaction identifier ("txn"): the progress of an application writing to the table.
struct SetTransaction {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;  // ms since the epoch
};

// Commit provenance. Free-form in the protocol; these are the fields weir writes and reads back.
// Every operationParameters / operationMetrics value is kept as text (Spark writes strings).
struct CommitInfo {
  std::optional<int64_t> timestamp;
  std::optional<int64_t> in_commit_timestamp;
  std::optional<std::string> operation;
  StringMap operation_parameters;
  std::optional<int64_t> read_version;
  std::optional<std::string> isolation_level;
  std::optional<bool> is_blind_append;
  StringMap operation_metrics;
  std::optional<std::string> engine_info;
  std::optional<std::string> txn_id;
};

struct DomainMetadata {
  std::string domain;
  std::string configuration;
  bool removed = false;
};

// V2 checkpoints only.
struct CheckpointMetadata {
  int64_t version = 0;
};
struct Sidecar {
  std::string path;  // relative to _delta_log/_sidecars
  int64_t size_in_bytes = 0;
  int64_t modification_time = 0;
};

using Action = std::variant<Protocol, Metadata, AddFile, RemoveFile, SetTransaction, CommitInfo,
                            DomainMetadata, CheckpointMetadata, Sidecar>;

// Parses newline-delimited actions (a commit file, or a JSON checkpoint). Blank lines are skipped;
// lines holding only unknown actions yield nothing. `source` names the file in errors:
// Corruption "malformed action in <source> line <n>: <reason>".
Result<std::vector<Action>> ParseActions(std::string_view text, std::string_view source);

// One line of JSON without the newline.
std::string SerializeAction(const Action& action);
// Every action followed by '\n': the content of a commit file.
std::string SerializeActions(const std::vector<Action>& actions);

// Removes `add` from the table: a remove carrying its partition values and size.
RemoveFile MakeRemove(const AddFile& add, int64_t deletion_timestamp_ms, bool data_change);

}  // namespace weir::delta
