// `weir table optimize|vacuum PATH`: small-file maintenance of a Delta table. OPTIMIZE compacts
// small files into large ones (dataChange=false, safe next to a running stream); VACUUM deletes
// files no version within the retention needs (delta/optimize.h, delta/vacuum.h).
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "delta/optimize.h"
#include "delta/table_config.h"
#include "delta/vacuum.h"

namespace weir::cli {
namespace {

// The table path as given, made absolute (the log may name files by absolute file: URIs); an
// Azure URL as given.
std::string TablePath(const Flags& flags) {
  if (IsRemotePath(flags.positional()[0])) return flags.positional()[0];
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(flags.positional()[0], ec);
  return ec ? flags.positional()[0] : absolute.lexically_normal().string();
}

std::string Bytes(int64_t n) {
  char text[64];
  if (n >= (1LL << 30)) {
    std::snprintf(text, sizeof(text), "%.2f GiB", static_cast<double>(n) / (1LL << 30));
  } else if (n >= (1LL << 20)) {
    std::snprintf(text, sizeof(text), "%.2f MiB", static_cast<double>(n) / (1LL << 20));
  } else if (n >= 1024) {
    std::snprintf(text, sizeof(text), "%.1f KiB", static_cast<double>(n) / 1024);
  } else {
    std::snprintf(text, sizeof(text), "%lld bytes", static_cast<long long>(n));
  }
  return text;
}

Result<int64_t> SizeFlag(const Flags& flags, const std::string& name) {
  auto bytes = delta::ParseByteSize(flags.Get(name));
  if (!bytes.ok() || *bytes <= 0) {
    return Status::InvalidArgument("--" + name +
                                   " takes a size such as 1gb, 256mb or 134217728, not '" +
                                   flags.Get(name) + "'");
  }
  return *bytes;
}

int OptimizeMain(const Flags& flags) {
  delta::OptimizeOptions options;
  if (flags.Has("target-size")) {
    auto size = SizeFlag(flags, "target-size");
    if (!size.ok()) return Fail(size.status());
    options.target_file_size = *size;
  }
  if (flags.Has("min-file-size")) {
    auto size = SizeFlag(flags, "min-file-size");
    if (!size.ok()) return Fail(size.status());
    options.min_file_size = *size;
  }
  if (flags.Has("max-attempts")) {
    auto n = flags.GetInt("max-attempts");
    if (!n.ok()) return Fail(n.status());
    if (*n < 1) return Fail(Status::InvalidArgument("--max-attempts must be at least 1"));
    options.max_attempts = static_cast<int>(*n);
  }
  options.where = flags.Get("where");
  auto table_fs = FileSystemFor(flags, TablePath(flags));
  if (!table_fs.ok()) return Fail(table_fs.status());
  auto snapshot = delta::Snapshot::Load(*table_fs, TablePath(flags));
  if (!snapshot.ok()) return Fail(snapshot.status());
  auto result = delta::OptimizeTable(*snapshot, options);
  if (!result.ok()) return Fail(result.status());
  const delta::OptimizeResult& r = *result;
  if (r.version < 0) {
    std::printf(
        "nothing to optimize: no partition%s holds two or more files smaller than %s "
        "(table at version %lld)\n",
        options.where.empty() ? "" : " matching --where",
        Bytes(options.min_file_size.value_or(options.target_file_size)).c_str(),
        static_cast<long long>(r.read_version));
    return 0;
  }
  std::printf(
      "committed version %lld (OPTIMIZE): %lld files (%s) rewritten as %lld files (%s), "
      "%lld rows, %lld partition%s\n",
      static_cast<long long>(r.version), static_cast<long long>(r.num_removed_files),
      Bytes(r.num_removed_bytes).c_str(), static_cast<long long>(r.num_added_files),
      Bytes(r.num_added_bytes).c_str(), static_cast<long long>(r.num_rows),
      static_cast<long long>(r.num_partitions), r.num_partitions == 1 ? "" : "s");
  if (r.attempts > 1) {
    std::printf("planned %d times: concurrent commits removed files being compacted\n", r.attempts);
  }
  if (r.checkpoint_written) {
    std::printf("checkpoint written at version %lld\n", static_cast<long long>(r.version));
  }
  return 0;
}

int VacuumMain(const Flags& flags) {
  delta::VacuumOptions options;
  if (flags.Has("retain")) {
    auto hours = flags.GetDouble("retain");
    if (!hours.ok()) return Fail(hours.status());
    if (!(*hours >= 0) || *hours > 1e7) {
      return Fail(Status::InvalidArgument("--retain takes a number of hours >= 0"));
    }
    options.retention_ms = static_cast<int64_t>(std::llround(*hours * 3600.0 * 1000.0));
  }
  options.retention_check = !flags.GetBool("force-retention");
  options.dry_run = flags.GetBool("dry-run");
  options.log_commits = !flags.GetBool("no-history");
  auto table_fs = FileSystemFor(flags, TablePath(flags));
  if (!table_fs.ok()) return Fail(table_fs.status());
  auto snapshot = delta::Snapshot::Load(*table_fs, TablePath(flags));
  if (!snapshot.ok()) return Fail(snapshot.status());
  auto result = delta::VacuumTable(*snapshot, options);
  if (!result.ok()) return Fail(result.status());
  const delta::VacuumResult& r = *result;
  double hours = static_cast<double>(r.retention_ms) / 3600000.0;
  if (options.dry_run) {
    std::printf(
        "dry run: VACUUM would delete %zu files (%s) not needed by versions of the last "
        "%g hours (table at version %lld):\n",
        r.files.size(), Bytes(r.bytes).c_str(), hours, static_cast<long long>(r.version));
    for (const std::string& f : r.files) std::printf("  %s\n", f.c_str());
    return 0;
  }
  std::printf(
      "deleted %zu files (%s) and %lld empty directories not needed by versions of the "
      "last %g hours (table at version %lld)\n",
      r.files.size(), Bytes(r.bytes).c_str(), static_cast<long long>(r.directories_deleted), hours,
      static_cast<long long>(r.version));
  if (r.start_version >= 0) {
    std::printf("recorded as versions %lld (VACUUM START) and %lld (VACUUM END)\n",
                static_cast<long long>(r.start_version), static_cast<long long>(r.end_version));
  }
  return 0;
}

int RunOptimize(const std::vector<std::string>& args) {
  Flags flags(
      "weir table optimize PATH [--where EXPR] [--target-size SIZE] [--min-file-size SIZE]",
      "Compacts small data files (Delta OPTIMIZE, bin-packing): per partition, files smaller than\n"
      "--min-file-size are packed into bins of up to --target-size and each bin is rewritten as\n"
      "one file, with statistics. The rows do not change; the commit (operation OPTIMIZE) removes\n"
      "and adds files with dataChange=false, so streams reading the table skip it, and it runs\n"
      "safely while a stream appends to the table: only a concurrent removal of a file being\n"
      "compacted makes it plan again (up to --max-attempts), else it stops with the table\n"
      "unchanged. Older versions keep their files until `weir table vacuum` deletes them.\n"
      "Sizes: 1gb, 256mb, 134217728. Tables with deletion vectors are refused.");
  flags.Positional("PATH", 1, 1);
  flags.Value("where", "EXPR",
              "only partitions matching this, e.g. \"region = 'eu' AND day = '2024-05-01'\"");
  flags.Value("target-size", "SIZE", "largest file to write (default 1gb, as Databricks OPTIMIZE)");
  flags.Value("min-file-size", "SIZE",
              "files at least this large are left alone (default: the target)");
  flags.Value("max-attempts", "N", "plans before giving up on concurrent removals (default 3)");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, OptimizeMain);
}

int RunVacuum(const std::vector<std::string>& args) {
  Flags flags(
      "weir table vacuum PATH [--retain HOURS] [--dry-run] [--force-retention]",
      "Deletes files in the table folder that no version of the last HOURS needs (Delta VACUUM):\n"
      "files that are not live in the latest version and were removed (by OPTIMIZE, overwrites,\n"
      "deletes) more than HOURS ago, and untracked files (e.g. from failed writes) older than\n"
      "HOURS. Time travel to versions within HOURS keeps working; older versions may no longer\n"
      "read. _delta_log and hidden files (starting with _ or ., except partition directories)\n"
      "are never touched. HOURS defaults to delta.deletedFileRetentionDuration (168 hours);\n"
      "less than that is refused unless --force-retention is given (Delta's\n"
      "spark.databricks.delta.retentionDurationCheck.enabled=false): a short retention can break\n"
      "readers of recent versions and delete files that running writers have not committed yet.\n"
      "Records VACUUM START / VACUUM END commits, as Delta does.");
  flags.Positional("PATH", 1, 1);
  flags.Value("retain", "HOURS",
              "keep what versions of the last HOURS need (default: the table's)");
  flags.Bool("dry-run", "list the files that would be deleted; delete and commit nothing");
  flags.Bool("force-retention",
             "allow a retention shorter than delta.deletedFileRetentionDuration");
  flags.Bool("no-history", "do not record VACUUM START / VACUUM END commits");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, VacuumMain);
}

WEIR_REGISTER_COMMAND(optimize_cmd, "table optimize",
                      "compact a Delta table's small files into large ones (OPTIMIZE)",
                      RunOptimize);
WEIR_REGISTER_COMMAND(vacuum_cmd, "table vacuum",
                      "delete files no recent version of a Delta table needs (VACUUM)", RunVacuum);

}  // namespace
}  // namespace weir::cli
