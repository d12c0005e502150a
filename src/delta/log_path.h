// Names of the files in a Delta log (_delta_log/): commits `%020d.json`, classic checkpoints
// `%020d.checkpoint.parquet`, multi-part checkpoints `%020d.checkpoint.%010d.%010d.parquet`,
// UUID-named v2 checkpoints `%020d.checkpoint.<uuid>.{json,parquet}`, checksums `%020d.crc`,
// log compactions `%020d.%020d.compacted.json`, and the `_last_checkpoint` hint with its JSON
// form. Also the URI form of data file paths in add/remove actions. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace weir::delta {

inline constexpr std::string_view kLogDirName = "_delta_log";
inline constexpr std::string_view kLastCheckpointName = "_last_checkpoint";
inline constexpr std::string_view kSidecarDirName = "_sidecars";

enum class LogFileType {
  kCommit,
  kClassicCheckpoint,
  kMultiPartCheckpoint,
  kUuidCheckpoint,
  kChecksum,
  kCompaction,
};

struct ParsedLogName {
  LogFileType type = LogFileType::kCommit;
  int64_t version = 0;
  int32_t part = 0;       // multi-part checkpoints: 1-based part number
  int32_t num_parts = 0;  // multi-part checkpoints: number of parts
  bool is_json = false;   // UUID-named checkpoints: JSON rather than Parquet
  int64_t end_version = 0;  // compactions: last version covered
};

// Parses a file name (no directory) found in _delta_log; nullopt for anything else (temporaries,
// _last_checkpoint, .crc of Hadoop, directories such as _sidecars).
std::optional<ParsedLogName> ParseLogFileName(std::string_view name);

std::string CommitFileName(int64_t version);
std::string ClassicCheckpointFileName(int64_t version);
// REQUIRES: 1 <= part <= num_parts.
std::string MultiPartCheckpointFileName(int64_t version, int32_t part, int32_t num_parts);

// "<table_root>/_delta_log".
std::string LogDirPath(std::string_view table_root);

// The _last_checkpoint hint. Unknown fields (checkpointSchema, checksum, v2Checkpoint,
// size_in_bytes, ...) are ignored when parsing.
struct LastCheckpointHint {
  int64_t version = 0;
  int64_t size = 0;  // actions in the checkpoint
  std::optional<int32_t> parts;
  std::optional<int64_t> size_in_bytes;
  std::optional<int64_t> num_of_add_files;
};
// Corruption naming `source` when the text is not a JSON object with an integer "version".
Result<LastCheckpointHint> ParseLastCheckpoint(std::string_view json, std::string_view source);
std::string SerializeLastCheckpoint(const LastCheckpointHint& hint);

// Data file paths. The log stores RFC 2396 URI paths: EncodePathUri percent-encodes the characters
// a URI path may not hold ('%', space, '"', '#', '<', '>', '?', '[', '\', ']', '^', '`', '{', '|',
// '}' and control bytes) and keeps '/', other ASCII and UTF-8 bytes as they are, as Spark does.
std::string EncodePathUri(std::string_view path);
// Decodes %XX escapes; a '%' not followed by two hex digits is kept literally.
std::string DecodePathUri(std::string_view uri);
// The local path of a file named by an add/remove `path`: relative paths are joined to the table
// root; "file:" URIs become local paths. InvalidArgument for other schemes (s3://, abfss://, ...).
Result<std::string> ResolveDataFilePath(std::string_view table_root, std::string_view uri_path);

}  // namespace weir::delta
