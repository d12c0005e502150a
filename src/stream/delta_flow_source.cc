#include "stream/delta_flow_source.h"

#include "stream/commit_signal.h"

namespace weir::stream {

Result<std::unique_ptr<DeltaFlowSource>> DeltaFlowSource::Open(
    fs::FileSystem* fs, std::string table_name, std::string table_path,
    const std::map<std::string, std::string>& options) {
  WEIR_ASSIGN_OR_RETURN(delta::DeltaSourceOptions parsed,
                        delta::DeltaSourceOptions::FromMap(options));
  auto source = delta::DeltaSource::Open(fs, table_path, std::move(parsed));
  if (source.status().IsNotFound()) {
    return Status::NotFound("the table " + table_name + " read as a stream does not exist at " +
                            table_path +
                            ": run the flow that writes it first (flows run in the "
                            "pipeline file's order)");
  }
  std::unique_ptr<DeltaFlowSource> flow(new DeltaFlowSource());
  WEIR_ASSIGN_OR_RETURN(flow->source_, std::move(source));
  flow->table_path_ = std::move(table_path);
  return flow;
}

std::string DeltaFlowSource::description() const { return "DeltaSource[file:" + table_path_ + "]"; }

// Without a checkpoint, Delta's source starts at the table's snapshot (or at startingVersion /
// startingTimestamp): nothing to resume from the flow's own table.
Status DeltaFlowSource::StartFresh(Checkpoint&, const delta::Snapshot&) {
  start_.reset();
  return Status::OK();
}

Status DeltaFlowSource::Restore(const std::optional<std::string>& end_json, Checkpoint&) {
  start_.reset();
  if (end_json) {
    WEIR_ASSIGN_OR_RETURN(start_, source_->ParseOffset(*end_json));
  }
  return Status::OK();
}

Result<std::optional<std::string>> DeltaFlowSource::PlanNext(const Trigger& trigger, int64_t) {
  // Taken before the log is read: a commit announced after this is one the read may miss.
  commits_seen_ = CommitSignals::Global().Count(table_path_);
  if (trigger.kind == Trigger::Kind::kAvailableNow && !available_now_prepared_) {
    source_->PrepareForTriggerAvailableNow();
    available_now_prepared_ = true;
  }
  delta::DeltaReadLimit limit = trigger.kind == Trigger::Kind::kOnce
                                    ? delta::DeltaReadLimit::AllAvailable()
                                    : source_->DefaultReadLimit();
  WEIR_ASSIGN_OR_RETURN(std::optional<delta::DeltaSourceOffset> end,
                        source_->LatestOffset(start_, limit));
  if (trigger.kind == Trigger::Kind::kAvailableNow && !backlog_counted_ &&
      source_->available_now_end()) {
    backlog_counted_ = true;
    auto files = source_->FilesBetween(start_, *source_->available_now_end());
    if (files.ok()) {
      for (const auto& f : *files) backlog_rows_ += f.add->NumRecords().value_or(0);
    }
  }
  if (!end || (start_ && *end == *start_)) return std::optional<std::string>();
  latest_json_ = end->ToJson();
  return std::optional<std::string>(end->ToJson());
}

bool DeltaFlowSource::WaitForData(int64_t max_wait_ms, const std::atomic<bool>* stop) {
  return CommitSignals::Global().WaitForChange(table_path_, commits_seen_, max_wait_ms, stop);
}

int64_t DeltaFlowSource::MaxIdleWaitMs() const {
  return CommitSignals::Global().HasWriter(table_path_) ? 1000 : 100;
}

Status DeltaFlowSource::PlanRead(const std::string& end_json) {
  WEIR_ASSIGN_OR_RETURN(delta::DeltaSourceOffset end, source_->ParseOffset(end_json));
  if (start_) WEIR_RETURN_NOT_OK(delta::ValidateOffsetProgress(*start_, end));
  WEIR_ASSIGN_OR_RETURN(files_, source_->FilesBetween(start_, end));
  if (!latest_json_) latest_json_ = end_json;
  return Status::OK();
}

int64_t DeltaFlowSource::PlannedRows() const {
  int64_t rows = 0;
  for (const auto& f : files_) rows += f.add->NumRecords().value_or(0);
  return rows;
}

Result<BatchPrefetcher::Producer> DeltaFlowSource::Read(int64_t chunk_rows) {
  // A data file is read a row group at a time, each handed on in slices of `chunk_rows`: the
  // transform's intermediate columns and the writers' open pages stay those of one slice, and a
  // row group's decoded pages are released as soon as its last slice is written.
  // Row groups are read (pages decompressed and decoded) one ahead of the slicing, on a thread
  // of their own: the slices' transform (from_json, on the prefetch thread) is the busiest stage
  // of a silver batch, and decoding took a fifth of its thread.
  struct Files {
    std::vector<delta::DeltaSourceFile> files;
    size_t next_file = 0;
    std::unique_ptr<delta::TableScan::FileRowGroups> groups;  // of the file being read
  };
  auto files = std::make_shared<Files>();
  files->files = files_;
  const delta::DeltaSource* source = source_.get();
  auto next_group = [files, source]() -> Result<std::optional<columnar::Batch>> {
    while (true) {
      if (files->groups) {
        WEIR_ASSIGN_OR_RETURN(std::optional<columnar::Batch> group, files->groups->Next());
        if (group) return group;
        files->groups.reset();
      }
      if (files->next_file >= files->files.size()) return std::optional<columnar::Batch>();
      const delta::DeltaSourceFile& file = files->files[files->next_file++];
      WEIR_ASSIGN_OR_RETURN(files->groups, source->OpenFile(*file.add));
    }
  };
  struct State {
    std::unique_ptr<Prefetcher<columnar::Batch>> row_groups;
    columnar::Batch current;  // the row group being sliced
    int64_t offset = 0;       // its next row
  };
  auto state = std::make_shared<State>();
  state->row_groups = std::make_unique<Prefetcher<columnar::Batch>>(std::move(next_group),
                                                                   /*depth=*/1);
  const int64_t slice_rows = chunk_rows > 0 ? chunk_rows : kDefaultSliceRows;
  return BatchPrefetcher::Producer(
      [state, slice_rows]() -> Result<std::optional<columnar::Batch>> {
        while (state->offset >= state->current.num_rows()) {
          state->current = columnar::Batch();
          state->offset = 0;
          WEIR_ASSIGN_OR_RETURN(std::optional<columnar::Batch> group, state->row_groups->Next());
          if (!group) return std::optional<columnar::Batch>();
          state->current = std::move(*group);  // read on unless it has no rows
        }
        columnar::Batch& file = state->current;
        const int64_t rows = file.num_rows();
        if (state->offset == 0 && (rows <= slice_rows || file.columns.empty())) {
          state->offset = rows;
          return std::optional<columnar::Batch>(std::move(file));
        }
        const int64_t length = std::min(slice_rows, rows - state->offset);
        columnar::Batch slice(file.schema);
        for (size_t c = 0; c < file.columns.size(); ++c) {
          slice.columns[c] = file.columns[c].Slice(state->offset, length);
        }
        state->offset += length;
        if (state->offset >= rows) file = columnar::Batch();  // the slices own its buffers now
        return std::optional<columnar::Batch>(std::move(slice));
      });
}

void DeltaFlowSource::Report(const std::string& end_json, SourceProgress* progress) const {
  progress->description = description();
  progress->start_offset = StartJson();
  progress->end_offset = end_json;
  progress->latest_offset = latest_json_.value_or(end_json);
}

Status DeltaFlowSource::Advance(const std::string& end_json) {
  WEIR_ASSIGN_OR_RETURN(start_, source_->ParseOffset(end_json));
  files_.clear();
  return Status::OK();
}

std::string DeltaFlowSource::StartJson() const { return start_ ? start_->ToJson() : "null"; }

}  // namespace weir::stream
