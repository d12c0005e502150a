#include "delta/log_segment.h"

#include <algorithm>
#include <map>

namespace weir::delta {

Result<std::vector<LogFile>> ListLogFiles(fs::FileSystem* fs, const std::string& log_dir) {
  return ListLogFilesFrom(fs, log_dir, 0);
}

Result<std::vector<LogFile>> ListLogFilesFrom(fs::FileSystem* fs, const std::string& log_dir,
                                              int64_t from_version) {
  // "00000000000000000123": every file of version 123 or later starts with it or sorts after.
  std::string first_name = CommitFileName(std::max<int64_t>(from_version, 0));
  first_name.resize(first_name.size() - std::string_view(".json").size());
  auto listed = fs->ListFrom(log_dir, first_name);
  if (!listed.ok()) {
    if (listed.status().IsNotFound()) {
      return Status::NotFound("not a Delta table: " + fs::DirName(log_dir) + " has no " +
                              std::string(kLogDirName) + " directory");
    }
    return listed.status();
  }
  return LogFilesOfListing(*listed);
}

std::vector<LogFile> LogFilesOfListing(const std::vector<fs::FileInfo>& listed) {
  std::vector<LogFile> files;
  for (const fs::FileInfo& info : listed) {
    if (info.is_dir) continue;
    std::string name = fs::BaseName(info.path);
    auto parsed = ParseLogFileName(name);
    if (!parsed) continue;  // temporaries, _last_checkpoint, Hadoop .crc files, ...
    files.push_back(LogFile{info.path, *parsed, info.size, info.mtime_ms});
  }
  std::sort(files.begin(), files.end(), [](const LogFile& a, const LogFile& b) {
    if (a.version() != b.version()) return a.version() < b.version();
    return a.path < b.path;
  });
  return files;
}

Result<LogSegment> LogSegmentFromListing(const std::string& table_root, std::vector<LogFile> files,
                                         std::optional<int64_t> version) {
  LogSegment seg;
  seg.table_root = table_root;
  seg.log_dir = LogDirPath(table_root);

  std::map<int64_t, LogFile> commits;
  // version -> the chosen complete checkpoint's files
  std::map<int64_t, std::vector<LogFile>> checkpoints;
  // (version, num_parts) -> parts found, by part number
  std::map<std::pair<int64_t, int32_t>, std::map<int32_t, LogFile>> multi_part;
  for (LogFile& f : files) {
    switch (f.name.type) {
      case LogFileType::kCommit:
        commits.emplace(f.version(), f);
        break;
      case LogFileType::kClassicCheckpoint:
        checkpoints[f.version()] = {f};  // preferred over the other kinds
        break;
      case LogFileType::kUuidCheckpoint: {
        auto& chosen = checkpoints[f.version()];
        if (chosen.empty()) chosen = {f};
        break;
      }
      case LogFileType::kMultiPartCheckpoint:
        multi_part[{f.version(), f.name.num_parts}][f.name.part] = f;
        break;
      default:
        break;
    }
  }
  for (auto& [key, parts] : multi_part) {
    if (static_cast<int32_t>(parts.size()) != key.second) continue;  // incomplete: ignored
    auto& chosen = checkpoints[key.first];
    if (!chosen.empty()) continue;
    for (auto& [part, file] : parts) chosen.push_back(file);
  }
  for (const auto& [v, f] : commits) seg.all_commits.push_back(f);

  if (commits.empty() && checkpoints.empty()) {
    return Status::NotFound("not a Delta table: " + seg.log_dir + " holds no commit");
  }
  int64_t latest = -1;
  if (!commits.empty()) latest = commits.rbegin()->first;
  if (!checkpoints.empty()) latest = std::max(latest, checkpoints.rbegin()->first);
  int64_t target = version.value_or(latest);
  if (target < 0 || target > latest) {
    return Status::NotFound("Delta table " + table_root + " has no version " +
                            std::to_string(target) + "; the latest is " + std::to_string(latest));
  }
  seg.version = target;

  auto cp = checkpoints.upper_bound(target);
  int64_t start = 0;
  if (cp != checkpoints.begin()) {
    --cp;
    seg.checkpoint_version = cp->first;
    seg.checkpoint_files = cp->second;
    start = cp->first + 1;
  }
  for (int64_t v = start; v <= target; ++v) {
    auto it = commits.find(v);
    if (it == commits.end()) {
      int64_t earliest = commits.empty() ? target + 1 : commits.begin()->first;
      if (v < earliest && !seg.checkpoint_version && target >= earliest) {
        // The version's own commits are there but what comes before them is gone and no
        // checkpoint stands in: the log was damaged, not cleaned up (a cleanup always keeps the
        // checkpoint it cleaned up to). Not NotFound: a writer would take the table for absent
        // and create a new one over the old log.
        return Status::Corruption(
            "Delta table " + table_root + ": commit " + std::to_string(v) + " (" +
            CommitFileName(v) + ") is missing and no checkpoint covers it, so version " +
            std::to_string(target) + " cannot be reconstructed from commits " +
            std::to_string(earliest) + ".." + std::to_string(target) +
            "; restore the missing log files from a backup");
      }
      if (v < earliest && !seg.checkpoint_version) {
        return Status::NotFound("Delta table " + table_root + ": version " +
                                std::to_string(target) +
                                " cannot be reconstructed, its commits were cleaned up (the "
                                "earliest commit is " + std::to_string(earliest) +
                                " and no checkpoint covers it)");
      }
      return Status::Corruption("Delta table " + table_root + ": commit " + std::to_string(v) +
                                " (" + CommitFileName(v) + ") is missing between versions " +
                                std::to_string(start) + " and " + std::to_string(target) +
                                "; the log must be contiguous");
    }
    seg.commits.push_back(it->second);
  }
  return seg;
}

Result<LogSegment> BuildLogSegment(fs::FileSystem* fs, const std::string& table_root,
                                   std::optional<int64_t> version) {
  std::string log_dir = LogDirPath(table_root);
  std::optional<LastCheckpointHint> hint = ReadLastCheckpointHint(fs, log_dir);
  // The hint's checkpoint and everything after it sort from its zero-padded version on: when the
  // listing from there holds a complete checkpoint at or after it, that is the newest at or below
  // the version (nothing before the hint can be newer) and the segment is the one the whole
  // listing gives. Otherwise (no hint, time travel before it, its checkpoint gone or
  // incomplete, a hint past the log) the whole log is listed.
  if (hint && hint->version >= 0 && (!version || *version >= hint->version)) {
    auto files = ListLogFilesFrom(fs, log_dir, hint->version);
    if (!files.ok() && !files.status().IsNotFound()) return files.status();
    if (files.ok()) {
      auto seg = LogSegmentFromListing(table_root, std::move(*files), version);
      if (seg.ok() && seg->checkpoint_version && *seg->checkpoint_version >= hint->version) {
        seg->last_checkpoint = hint;
        seg->listed_from_version = hint->version;
        return seg;
      }
    }
  }
  WEIR_ASSIGN_OR_RETURN(auto files, ListLogFiles(fs, log_dir));
  WEIR_ASSIGN_OR_RETURN(LogSegment seg, LogSegmentFromListing(table_root, std::move(files), version));
  seg.last_checkpoint = hint;
  return seg;
}

std::optional<LastCheckpointHint> ReadLastCheckpointHint(fs::FileSystem* fs,
                                                         const std::string& log_dir) {
  const std::string hint_path = fs::JoinPath(log_dir, kLastCheckpointName);
  auto hint_text = fs::ReadFileToString(fs, hint_path);
  if (!hint_text.ok()) return std::nullopt;
  auto hint = ParseLastCheckpoint(*hint_text, hint_path);
  if (!hint.ok()) return std::nullopt;
  return *hint;
}

}  // namespace weir::delta
