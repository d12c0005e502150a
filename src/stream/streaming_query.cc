#include "stream/streaming_query.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "columnar/text_format.h"
#include "expr/projection.h"
#include "stream/checkpoint.h"
#include "stream/deduplicate.h"
#include "stream/delta_flow_source.h"
#include "stream/kafka_flow_source.h"
#include "stream/prefetcher.h"
#include "stream/release_queue.h"
#include "stream/table_sink.h"
#include "stream/watermark.h"
#include "stream/write_behind.h"

namespace weir::stream {

namespace {

// How often at most a query gives freed memory back to the system between batches.
constexpr int64_t kTrimIntervalMs = 5000;

// One chunk of a batch as the reading thread hands it over: transformed, not yet deduplicated.
struct Chunk {
  int64_t input_rows = 0;
  TransformResult out;
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  int64_t ElapsedMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

class StreamingQuery::Impl {
 public:
  Impl(fs::FileSystem* fs, FlowSpec spec, QueryOptions options)
      : fs_(fs), spec_(std::move(spec)), options_(std::move(options)), run_id_(NewUuid()) {}

  Status Init() {
    if (options_.workers_group) {
      WEIR_RETURN_NOT_OK(CheckWorkerFlow());
      spec_.checkpoint_dir += "/workers/" + *options_.workers_group + "/" + run_id_;
    }
    WEIR_ASSIGN_OR_RETURN(checkpoint_, Checkpoint::Open(fs_, spec_.checkpoint_dir));
    WEIR_RETURN_NOT_OK(checkpoint_->CheckNoSparkState());
    auto log = [this](const std::string& line) { Log(line); };
    KafkaFlowSource* kafka_source = nullptr;
    if (spec_.kafka) {
      WEIR_ASSIGN_OR_RETURN(auto opened, KafkaFlowSource::Open(*spec_.kafka, spec_.name, log));
      kafka_source = opened.get();
      source_ = std::move(opened);
    } else if (spec_.delta) {
      WEIR_ASSIGN_OR_RETURN(source_,
                            DeltaFlowSource::Open(fs_, spec_.delta->name, spec_.delta->path,
                                                           spec_.delta->options));
    } else {
      return Status::InvalidArgument("flow " + spec_.name + " has no source");
    }
    if (spec_.make_transform) {
      WEIR_ASSIGN_OR_RETURN(transform_, spec_.make_transform(source_->schema()));
    }
    output_schema_ = transform_ ? transform_->output_schema() : source_->schema();
    if (transform_ && transform_->watermark()) {
      tracker_.emplace(std::vector<int64_t>{transform_->watermark()->delay_ms});
    }
    WEIR_RETURN_NOT_OK(PrepareDeduplication());
    WEIR_ASSIGN_OR_RETURN(std::vector<int64_t> commits, checkpoint_->CommitIds());
    const bool tables_must_exist = !commits.empty();  // the flow's own table, not quarantine
    WEIR_ASSIGN_OR_RETURN(sink_, TableSink::Open(fs_, {.name = spec_.name,
                                                       .path = spec_.table_path,
                                                       .schema = output_schema_,
                                                       .partition_by = spec_.partition_by,
                                                       .table_properties = spec_.table_properties,
                                                       .description = spec_.comment,
                                                       .log = log,
                                                       .must_exist = tables_must_exist,
                                                       .merge = SinkMerge(),
                                                       .auto_compact_settings =
                                                           spec_.auto_compact_settings}));
    if (!sink_->not_null_checks().empty()) {
      if (!transform_) {
        return Status::InvalidArgument("the Delta table " + spec_.table_path + " has NOT NULL "
                                       "columns the source rows of " + spec_.name +
                                       " may leave null");
      }
      WEIR_RETURN_NOT_OK(transform_->CheckNotNull(sink_->not_null_checks()));
    }
    const columnar::Schema* quarantine = transform_ ? transform_->quarantine_schema() : nullptr;
    if (options_.workers_group) {
      if (quarantine != nullptr) {
        return Status::NotImplemented(
            spec_.name + " has a quarantine table; worker mode (--workers-group) runs flows that "
            "write one table (bronze): run this flow in a single `weir run` without it");
      }
      WEIR_RETURN_NOT_OK(kafka_source->JoinGroup(*options_.workers_group,
                                                 [this] { return sink_->table().Refresh(); }));
      Log(spec_.name + ": worker " + run_id_ + " joined group " + *options_.workers_group +
          " (batch log in " + spec_.checkpoint_dir + ")");
    }
    if (quarantine != nullptr) {
      WEIR_ASSIGN_OR_RETURN(quarantine_sink_, TableSink::Open(fs_, {.name = spec_.quarantine_name,
                                                                    .path = spec_.quarantine_path,
                                                                    .schema = *quarantine,
                                                                    .partition_by = {},
                                                                    .table_properties = {},
                                                                    .description = std::nullopt,
                                                                    .log = log,
                                                                    .must_exist = false,
                                                                    .merge = std::nullopt,
                                                                    .auto_compact_settings = {}}));
    }
    return Status::OK();
  }

  // Worker mode runs stateless Kafka flows that append: state, a merge or a checkpoint-owned
  // source cannot be split between processes.
  Status CheckWorkerFlow() const {
    auto refuse = [&](const std::string& why) {
      return Status::NotImplemented(spec_.name + " " + why +
                                    "; worker mode (--workers-group) runs flows that read Kafka "
                                    "and append without state: run this flow in a single `weir "
                                    "run` without --workers-group (see docs/deployment.md)");
    };
    if (!spec_.kafka) return refuse("reads a Delta table");
    if (spec_.drop_duplicates) return refuse("has DROP DUPLICATES (its state cannot be split)");
    if (spec_.merge) return refuse("merges into its table");
    if (options_.trigger.kind != Trigger::Kind::kProcessingTime) {
      return Status::InvalidArgument(
          "worker mode (--workers-group) runs continuously: use a processingTime trigger (one "
          "worker's availableNow run cannot know when the group's backlog is done)");
    }
    return Status::OK();
  }

  // DROP DUPLICATES: the operator's input is the table's rows plus, with a watermark, the event
  // time as a last column (which a key naming the watermark column refers to).
  Status PrepareDeduplication() {
    if (!spec_.drop_duplicates) return Status::OK();
    std::optional<Transform::Watermark> watermark =
        transform_ ? transform_->watermark() : std::nullopt;
    dedup_schema_ = output_schema_;
    dedup_options_.mode = spec_.drop_duplicates->within_watermark
                              ? DeduplicateMode::kWithinWatermark
                              : DeduplicateMode::kDropDuplicates;
    if (watermark) {
      dedup_schema_.fields.push_back({"__weir_event_time", columnar::DataType::Timestamp(), true});
      dedup_options_.event_time_column = dedup_schema_.num_fields() - 1;
      dedup_options_.delay_ms = watermark->delay_ms;
    } else if (spec_.drop_duplicates->within_watermark) {
      return Status::InvalidArgument(spec_.name +
                                     ": DROP DUPLICATES WITHIN WATERMARK needs a WATERMARK");
    }
    for (const std::string& name : spec_.drop_duplicates->columns) {
      int index = watermark && columnar::EqualsIgnoreAsciiCase(name, watermark->column)
                      ? dedup_options_.event_time_column
                      : output_schema_.FieldIndex(name);
      if (index < 0) {
        return Status::InvalidArgument(spec_.name + ": DROP DUPLICATES column " + name +
                                       " is not an output column; the output has " +
                                       output_schema_.ToDdl());
      }
      dedup_options_.key_columns.push_back(index);
    }
    return Status::OK();
  }

  std::optional<TableSinkOptions::Merge> SinkMerge() const {
    if (!spec_.merge) return std::nullopt;
    return TableSinkOptions::Merge{spec_.merge->keys, spec_.merge->when_matched_update,
                                   spec_.merge->target_conditions};
  }

  const std::string& id() const { return checkpoint_->query_id(); }
  // After the last run: frees the source (its Kafka client and fetched records), the tables and
  // the state store.
  void Close() {
    DropReadAhead();
    releases_.Drain();
    dedup_.reset();
    dedup_version_ = -2;
    quarantine_sink_.reset();
    sink_.reset();
    source_.reset();
  }

  Status Run(std::atomic<bool>* stop, int64_t* batches_run, int64_t* rows_written) {
    stop_ = stop;
    WEIR_ASSIGN_OR_RETURN(RestartPlan plan, checkpoint_->PlanRestart());
    int64_t batch_id = plan.batch_id;
    watermark_ms_ = plan.watermark_ms;
    previous_watermark_ms_ = plan.start ? plan.start->batch_watermark_ms : 0;
    last_eviction_watermark_ms_ = previous_watermark_ms_;
    if (plan.kind == RestartPlan::Kind::kRerun) watermark_ms_ = plan.end->batch_watermark_ms;
    if (tracker_) tracker_->SetWatermark(watermark_ms_);
    switch (plan.kind) {
      case RestartPlan::Kind::kFresh:
        WEIR_RETURN_NOT_OK(source_->StartFresh(*checkpoint_, *sink_->table().snapshot()));
        break;
      case RestartPlan::Kind::kNextBatch: {
        WEIR_ASSIGN_OR_RETURN(auto start, SourceOffset(*plan.start, plan.batch_id - 1));
        WEIR_RETURN_NOT_OK(source_->Restore(start, *checkpoint_));
        break;
      }
      case RestartPlan::Kind::kRerun: {
        std::optional<std::string> start;
        if (plan.start) {
          WEIR_ASSIGN_OR_RETURN(start, SourceOffset(*plan.start, plan.batch_id - 1));
        }
        WEIR_RETURN_NOT_OK(source_->Restore(start, *checkpoint_));
        WEIR_ASSIGN_OR_RETURN(auto end, SourceOffset(*plan.end, plan.batch_id));
        if (!end) {
          return Status::Corruption("offsets/" + std::to_string(batch_id) + " in " +
                                    spec_.checkpoint_dir + " has no offset for the source");
        }
        Log("re-running batch " + std::to_string(batch_id) + " of " + spec_.name +
            " over its logged range (it was not committed)");
        WEIR_RETURN_NOT_OK(RunBatch(batch_id, *end, plan.end->batch_timestamp_ms, /*latest_ms=*/0,
                                    /*trigger_start_ms=*/NowMs(), rows_written));
        ++*batches_run;
        ++batch_id;
        if (options_.trigger.kind == Trigger::Kind::kOnce) return Status::OK();
        break;
      }
    }
    return Loop(batch_id, batches_run, rows_written);
  }

 private:
  void Log(const std::string& line) {
    if (options_.log) options_.log(line);
  }

  bool Stopping() const { return stop_ != nullptr && stop_->load(); }

  // The source's offset in a logged offsets/N (nullopt for a JSON null).
  Result<std::optional<std::string>> SourceOffset(const OffsetSeq& seq, int64_t batch_id) {
    if (seq.sources.size() != 1) {
      return Status::InvalidArgument(
          "There are [" + std::to_string(seq.sources.size()) +
          "] sources in the checkpoint offsets and now there are [1] "
          "sources requested by the query. Cannot continue. (checkpoint " +
          spec_.checkpoint_dir + ", offsets/" + std::to_string(batch_id) + ")");
    }
    return seq.sources[0];
  }

  Status Loop(int64_t batch_id, int64_t* batches_run, int64_t* rows_written) {
    Status st = LoopBatches(batch_id, batches_run, rows_written);
    DropReadAhead();  // stopped, or failed, with the next batch's reading under way
    return st;
  }

  Status LoopBatches(int64_t batch_id, int64_t* batches_run, int64_t* rows_written) {
    const Trigger& trigger = options_.trigger;
    while (!Stopping()) {
      int64_t trigger_start_ms = NowMs();
      Stopwatch latest_watch;
      std::optional<std::string> end;
      int64_t latest_ms = 0;
      if (read_ahead_) {  // planned, and being read, while the previous batch committed
        trigger_start_ms = read_ahead_->trigger_start_ms;
        latest_ms = read_ahead_->latest_ms;
        end = read_ahead_->end;
      } else {
        WEIR_ASSIGN_OR_RETURN(end, source_->PlanNext(trigger, trigger_start_ms));
        latest_ms = latest_watch.ElapsedMs();
      }
      if (trigger.kind == Trigger::Kind::kAvailableNow && backfill_total_ == 0) {
        backfill_total_ = source_->BacklogRows();
      }
      if (!end && dedup_options_.event_time_column >= 0 &&
          watermark_ms_ > last_eviction_watermark_ms_) {
        // Spark's no-data batch: the watermark moved past the one state was last evicted with;
        // a batch over no new offsets evicts what expired. Under processingTime=0 it waits a
        // moment for data first: a data batch evicts as well, and a steady stream would
        // otherwise run two batches (and commits) for each one of data.
        if (trigger.kind == Trigger::Kind::kProcessingTime && trigger.interval_ms == 0 &&
            !no_data_batch_deferred_) {
          no_data_batch_deferred_ = true;
          source_->WaitForData(kNoDataBatchDelayMs, stop_);
          continue;
        }
        end = source_->StartJson();
      }
      if (!end) {  // no new data
        if (trigger.kind != Trigger::Kind::kProcessingTime) return Status::OK();
        if (trigger.interval_ms > 0) {
          SleepUntil(trigger.NextTriggerMs(trigger_start_ms));
        } else {
          // Spark polls an idle source every 10 ms (spark.streaming.pollingDelay); weir backs off
          // to the source's MaxIdleWaitMs, and a source that is told of new data (a table
          // committed by this process) is planned at once.
          idle_wait_ms_ = std::clamp<int64_t>(idle_wait_ms_ * 2, kFirstIdleWaitMs,
                                              std::max(kFirstIdleWaitMs, source_->MaxIdleWaitMs()));
          if (source_->WaitForData(idle_wait_ms_, stop_)) idle_wait_ms_ = 0;
        }
        continue;
      }
      idle_wait_ms_ = 0;
      no_data_batch_deferred_ = false;
      WEIR_RETURN_NOT_OK(
          RunBatch(batch_id, *end, trigger_start_ms, latest_ms, trigger_start_ms, rows_written));
      ++*batches_run;
      ++batch_id;
      if (trigger.kind == Trigger::Kind::kOnce) return Status::OK();
      if (trigger.kind == Trigger::Kind::kProcessingTime && trigger.interval_ms == 0 &&
          spec_.kafka && options_.coalesce_ms > 0 && last_planned_rows_ < kCoalesceBelowRows) {
        // A trickle: let records gather for the next batch instead of committing a batch of a
        // few rows as soon as they arrive (a batch's fixed cost — checkpoint entries, a data
        // file, a commit — then outweighs its rows). A backlog is read without a pause.
        SleepUntil(trigger_start_ms + options_.coalesce_ms);
        continue;
      }
      if (trigger.kind == Trigger::Kind::kProcessingTime) {
        int64_t next = trigger.NextTriggerMs(trigger_start_ms);
        int64_t now = NowMs();
        // Spark's ProcessingTimeExecutor: behind only when the batch took longer than the
        // interval (ending past the next aligned trigger time alone is not).
        if (trigger.interval_ms > 0 && now - trigger_start_ms > trigger.interval_ms) {
          Log("WARN Current batch is falling behind. The trigger interval is " +
              std::to_string(trigger.interval_ms) + " milliseconds, but spent " +
              std::to_string(now - trigger_start_ms) + " milliseconds");
        } else {
          SleepUntil(next);
        }
      }
    }
    return Status::OK();
  }

  void SleepUntil(int64_t when_ms) {
    while (!Stopping()) {
      int64_t now = NowMs();
      if (now >= when_ms) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(100, when_ms - now)));
    }
  }

  // Starts reading the planned batch on the prefetch thread: records (or a table's rows) laid
  // out as columns, then the transform, a few chunks ahead of dedup and encoding. The transform
  // is only ever applied there, one chunk at a time.
  Result<std::unique_ptr<Prefetcher<Chunk>>> StartReading(int64_t batch_timestamp_ms) {
    WEIR_ASSIGN_OR_RETURN(BatchPrefetcher::Producer read, source_->Read(options_.chunk_records));
    return std::make_unique<Prefetcher<Chunk>>(
        [read = std::move(read), transform = transform_.get(),
         batch_timestamp_ms]() -> Result<std::optional<Chunk>> {
          WEIR_ASSIGN_OR_RETURN(std::optional<columnar::Batch> input, read());
          if (!input) return std::optional<Chunk>();
          Chunk chunk;
          chunk.input_rows = input->num_rows();
          if (transform == nullptr) {
            chunk.out.rows = std::move(*input);
          } else {
            WEIR_ASSIGN_OR_RETURN(chunk.out, transform->Apply(*input, batch_timestamp_ms));
          }
          return std::optional<Chunk>(std::move(chunk));
        },
        source_->prefetch_depth());
  }

  // Under availableNow, once a batch (ending at `end`) is read: plans the next batch from its end
  // and starts reading it, so that the next batch's first chunks are ready when this one has
  // encoded its last rows and committed (the reading thread otherwise waited out every batch's
  // end; bronze over 4 batches of 500,000: ~2% less wall time). Only memory is touched: the next
  // batch's offsets/N are written, as always, after this batch's commits/N, and a crash before
  // then re-plans it. The source's start moves to `end` now (the batch's txns and progress were
  // taken from it before); a failed commit moves it back.
  Status StartReadAhead(const std::string& end) {
    if (options_.trigger.kind != Trigger::Kind::kAvailableNow || options_.workers_group ||
        !source_->CanPlanAhead() || Stopping()) {
      return Status::OK();
    }
    const std::string start = source_->StartJson();
    WEIR_RETURN_NOT_OK(source_->Advance(end));
    const int64_t trigger_start_ms = NowMs();
    Stopwatch latest_watch;
    Result<std::optional<std::string>> next = source_->PlanNext(options_.trigger, trigger_start_ms);
    const int64_t latest_ms = latest_watch.ElapsedMs();
    Status st = next.status();
    if (st.ok() && *next) {
      Stopwatch get_batch;
      st = source_->PlanRead(**next);
      const int64_t get_batch_ms = get_batch.ElapsedMs();
      Result<std::unique_ptr<Prefetcher<Chunk>>> prefetcher =
          st.ok() ? StartReading(trigger_start_ms) : Result<std::unique_ptr<Prefetcher<Chunk>>>(st);
      if (prefetcher.ok()) {
        read_ahead_ = ReadAhead{**next, trigger_start_ms, latest_ms, get_batch_ms,
                                std::move(*prefetcher)};
        uncommitted_start_ = start;
        return Status::OK();
      }
      st = prefetcher.status();
    }
    // No next batch yet (the loop plans again after the commit, when the watermark may call for a
    // no-data batch), or planning failed: the source goes back to where the commit expects it.
    WEIR_RETURN_NOT_OK(source_->Advance(start));
    return st;
  }

  // Stops the next batch's reading (if started); before the current batch committed, the
  // source's start goes back to the current batch's.
  void DropReadAhead() {
    if (!read_ahead_) return;
    read_ahead_->prefetcher->Stop();
    read_ahead_.reset();
    if (transform_) static_cast<void>(transform_->TakeMetrics());  // of rows never written
    source_->FinishRead();
    if (uncommitted_start_) static_cast<void>(source_->Advance(*uncommitted_start_));
    uncommitted_start_.reset();
  }

  // Runs batch `batch_id` from the source's start to `end`, then advances the source.
  Status RunBatch(int64_t batch_id, const std::string& end, int64_t batch_timestamp_ms,
                  int64_t latest_ms, int64_t trigger_start_ms, int64_t* rows_written) {
    Stopwatch total;
    QueryProgress progress;
    progress.duration_ms["latestOffset"] = latest_ms;
    // Parts measured before this call (latestOffset; getBatch of a batch read ahead) count in
    // triggerExecution, as in Spark, so that the parts never add up to more than the whole.
    int64_t measured_before_ms = latest_ms;

    // walCommit: offsets/N before anything is written (skipped when re-running a logged batch).
    Stopwatch wal;
    auto existing = checkpoint_->ReadOffsets(batch_id);
    if (existing.ok()) watermark_ms_ = existing->batch_watermark_ms;
    if (!existing.ok()) {
      if (!existing.status().IsNotFound()) return existing.status();
      OffsetSeq seq;
      seq.batch_watermark_ms = watermark_ms_;
      seq.batch_timestamp_ms = batch_timestamp_ms;
      seq.conf = {{"spark.sql.streaming.multipleWatermarkPolicy", "min"},
                  {"spark.sql.shuffle.partitions", "200"}};
      seq.sources.push_back(end);
      WEIR_RETURN_NOT_OK(checkpoint_->WriteOffsets(batch_id, seq));
    }
    progress.duration_ms["walCommit"] = wal.ElapsedMs();

    // getBatch: what to read, with data-loss checks.
    Stopwatch get_batch;
    if (read_ahead_ && read_ahead_->end != end) DropReadAhead();  // not this batch's range
    if (read_ahead_) {
      progress.duration_ms["getBatch"] = read_ahead_->get_batch_ms;
      measured_before_ms += read_ahead_->get_batch_ms;  // planned while the last batch committed
    } else {
      WEIR_RETURN_NOT_OK(source_->PlanRead(end));
      progress.duration_ms["getBatch"] = get_batch.ElapsedMs();
    }
    last_planned_rows_ = source_->PlannedRows();
    progress.duration_ms["queryPlanning"] = 0;

    // addBatch: read, transform, write files, commit them with the batch's txns (the quarantine
    // table first, so that a batch in the main table is complete in both).
    Stopwatch add_batch;
    int64_t input_rows = 0, output_rows = 0, files_written = 0;
    // Taken once the batch is read (before a read-ahead moves the source and applies the
    // transform to the next batch's rows); at the end for a batch that was skipped.
    SourceProgress source_progress;
    std::optional<DataQualityMetrics> quality;
    bool taken_when_read = false;
    WEIR_ASSIGN_OR_RETURN(bool done, sink_->IsCommitted(id(), batch_id));
    bool quarantine_done = true;
    if (!done && quarantine_sink_) {
      WEIR_ASSIGN_OR_RETURN(quarantine_done, quarantine_sink_->IsCommitted(id(), batch_id));
    }
    if (done) {
      DropReadAhead();
      Log("Skipping already complete epoch " + std::to_string(batch_id) + ", in query " + id() +
          " (" + spec_.name + ": its Delta commit is already in the table)");
      input_rows = source_->PlannedRows();
    } else {
      if (spec_.drop_duplicates && dedup_version_ != batch_id - 1) {
        // The state as of the previous batch (a re-run sees exactly what the first run saw). The
        // store stays open from batch to batch; it is reopened after a failure or a skipped batch.
        dedup_.reset();
        WEIR_ASSIGN_OR_RETURN(
            dedup_, Deduplicate::Open(fs_, StateStoreDir(spec_.checkpoint_dir, 0), batch_id - 1,
                                      dedup_schema_, dedup_options_));
        dedup_version_ = batch_id - 1;
      }
      Deduplicate* dedup = dedup_.get();
      // Reading (fetching records, laying them out as columns) and the transform run a few
      // chunks ahead of dedup and encoding, on their own thread (StartReading).
      std::unique_ptr<Prefetcher<Chunk>> prefetcher;
      if (read_ahead_) {
        prefetcher = std::move(read_ahead_->prefetcher);
        read_ahead_.reset();
      } else {
        WEIR_ASSIGN_OR_RETURN(prefetcher, StartReading(batch_timestamp_ms));
      }
      // Room in the dedup table for the batch's keys (a larger table and a rehash of the keys so
      // far, when the batch is a backfill) is made while the first chunk is read, not before.
      if (dedup) dedup->Reserve(source_->PlannedRows());
      // Encoding the rows into the tables' files runs behind dedup, on a third thread.
      WriteBehind writes(/*depth=*/2);
      auto fail = [&](Status st) {
        DropReadAhead();  // the next batch's reader first: FinishRead() ends the latest one
        prefetcher.reset();
        writes.Stop();
        releases_.Drain();
        source_->FinishRead();
        if (dedup_) {
          dedup_.reset();  // its uncommitted updates are dropped; reopened by the next batch
          dedup_version_ = -2;
        }
        sink_->Abort();
        if (quarantine_sink_) quarantine_sink_->Abort();
        return st.WithContext(spec_.name + " batch " + std::to_string(batch_id));
      };
      while (true) {
        if (Stopping()) {
          return fail(Status::Cancelled("stopped during the batch; it will be re-run on restart"));
        }
        auto next = prefetcher->Next();
        if (!next.ok()) return fail(next.status());
        if (!*next) break;
        input_rows += (*next)->input_rows;
        if (options_.on_backfill && backfill_total_ > 0) {
          backfill_done_ += (*next)->input_rows;
          options_.on_backfill(BackfillStatus{spec_.name, backfill_done_, backfill_total_});
        }
        TransformResult* out = &(*next)->out;
        if (tracker_ && out->event_time) {
          Status observed = tracker_->Observe(0, *out->event_time);
          if (!observed.ok()) return fail(observed);
        }
        if (dedup) {
          columnar::Batch keyed = out->rows;  // shares buffers
          keyed.schema = dedup_schema_;
          if (out->event_time) keyed.columns.push_back(*out->event_time);
          auto keep = dedup->Process(keyed, previous_watermark_ms_);
          if (!keep.ok()) return fail(keep.status());
          if (static_cast<int64_t>(keep->size()) != out->rows.num_rows()) {
            out->rows = expr::TakeRows(out->rows, *keep);
          }
        }
        output_rows += out->rows.num_rows();
        const bool quarantine = quarantine_sink_ && !quarantine_done;
        Status st = writes.Submit([this, rows = std::move(out->rows),
                                   quarantined = std::move(out->quarantined), quarantine]() mutable {
          Status written = sink_->Write(rows);
          if (written.ok() && quarantine) written = quarantine_sink_->Write(quarantined);
          releases_.Put(std::move(rows));  // freed off this thread, the batch's busiest
          releases_.Put(std::move(quarantined));
          return written;
        });
        if (!st.ok()) return fail(st);
        releases_.Drain();  // what was written meanwhile: this thread mostly waits for the others
      }
      prefetcher.reset();  // its reader too: the source reads one range at a time
      source_->FinishRead();
      // What the commit needs from the source, taken before a read-ahead moves its start.
      const std::map<std::string, int64_t> txns = source_->SinkTxns(end);
      const std::map<std::string, std::optional<int64_t>> expected_txns =
          source_->SinkExpectedTxns(end);
      source_->Report(end, &source_progress);
      taken_when_read = true;
      if (transform_) quality = transform_->TakeMetrics();
      if (Status st = StartReadAhead(end); !st.ok()) return fail(st);
      if (Status st = writes.Flush(); !st.ok()) return fail(st);
      releases_.Drain();
      if (dedup) {
        // State first: a crash after it re-runs the batch from the previous version.
        Status st = dedup->EvictExpired(watermark_ms_);
        if (st.ok()) st = dedup->Commit(batch_id);
        if (!st.ok()) return fail(st);
        dedup_version_ = batch_id;
        last_eviction_watermark_ms_ = watermark_ms_;
        progress.state_operators.push_back(dedup->progress());
      }
      if (quarantine_sink_ && !quarantine_done) {
        auto committed = quarantine_sink_->Commit(id(), batch_id, {});
        if (!committed.ok()) return fail(committed.status());
      }
      auto committed = sink_->Commit(id(), batch_id, txns, expected_txns);
      if (committed.status().IsConflict() && options_.workers_group) {
        // Another worker committed one of the batch's partitions first (a rebalance moved it):
        // nothing of this batch is in the table; the next batch starts where the table says.
        Log("WARN " + spec_.name + " batch " + std::to_string(batch_id) +
            " abandoned, its rows are another worker's now: " + committed.status().message());
        output_rows = 0;
      } else if (!committed.ok()) {
        return fail(committed.status());
      } else {
        files_written = *committed;
        *rows_written += output_rows;
      }
    }
    progress.duration_ms["addBatch"] = add_batch.ElapsedMs();

    // commitOffsets: commits/N after the sink commit.
    Stopwatch commit_watch;
    int64_t next_watermark_ms = watermark_ms_;
    if (tracker_) {
      EventTimeStats stats = tracker_->MergedBatchStats();
      if (stats.count > 0) {
        progress.event_time["min"] = FormatProgressTimestamp(stats.min_ms);
        progress.event_time["max"] = FormatProgressTimestamp(stats.max_ms);
        progress.event_time["avg"] = FormatProgressTimestamp(static_cast<int64_t>(stats.avg_ms));
      }
      progress.event_time["watermark"] = FormatProgressTimestamp(watermark_ms_);
      next_watermark_ms = tracker_->EndBatch();
    }
    Status st = checkpoint_->WriteCommit(batch_id, CommitMetadata{next_watermark_ms});
    if (!st.ok() && !st.IsAlreadyExists()) return st;
    WEIR_RETURN_NOT_OK(checkpoint_->Purge(batch_id));
    progress.duration_ms["commitOffsets"] = commit_watch.ElapsedMs();
    const int64_t trigger_execution_ms = total.ElapsedMs() + measured_before_ms;
    progress.duration_ms["triggerExecution"] = trigger_execution_ms;

    // Progress, with Spark's rates: input rate over the time since the previous trigger start.
    progress.id = id();
    progress.run_id = run_id_;
    progress.name = spec_.name;
    progress.timestamp_ms = trigger_start_ms;
    progress.batch_id = batch_id;
    progress.batch_duration_ms = trigger_execution_ms;
    progress.num_input_rows = input_rows;
    double since_last =
        last_trigger_start_ms_ > 0
            ? static_cast<double>(trigger_start_ms - last_trigger_start_ms_) / 1000.0
            : 0.0;
    progress.input_rows_per_second =
        since_last > 0 ? static_cast<double>(input_rows) / since_last : 0.0;
    double seconds = static_cast<double>(std::max<int64_t>(progress.batch_duration_ms, 1)) / 1000.0;
    progress.processed_rows_per_second = static_cast<double>(input_rows) / seconds;
    last_trigger_start_ms_ = trigger_start_ms;
    if (!taken_when_read) source_->Report(end, &source_progress);
    source_progress.num_input_rows = input_rows;
    source_progress.input_rows_per_second = progress.input_rows_per_second;
    source_progress.processed_rows_per_second = progress.processed_rows_per_second;
    progress.sources.push_back(std::move(source_progress));
    progress.sink_description = "DeltaSink[" + spec_.table_path + "]";
    progress.sink_num_output_rows = output_rows;
    progress.extra["weir"] = "{\"filesWritten\":" + std::to_string(files_written) + "}";
    if (transform_ && !taken_when_read) quality = transform_->TakeMetrics();
    if (quality) progress.extra["data_quality"] = quality->ToJson();
    if (read_ahead_) {
      uncommitted_start_.reset();  // the source moved to `end` already
    } else {
      WEIR_RETURN_NOT_OK(source_->Advance(end));
    }
    // A batch frees its buffers (records, columns, pages) at once; give the pages back now and
    // then (and when the run ends) so that a long run's RSS is what its batches need, not the
    // largest batch so far. Not after every batch: back-to-back batches of a backlog would fault
    // their buffers in again each time (about a tenth of bronze's CPU).
    if (NowMs() - last_trim_ms_ >= kTrimIntervalMs) {
      malloc_trim(0);
      last_trim_ms_ = NowMs();
    }
    previous_watermark_ms_ = watermark_ms_;
    watermark_ms_ = next_watermark_ms;
    if (options_.on_progress) options_.on_progress(progress);
    return Status::OK();
  }

  fs::FileSystem* fs_;
  FlowSpec spec_;
  QueryOptions options_;
  std::string run_id_;
  std::unique_ptr<Checkpoint> checkpoint_;
  std::unique_ptr<FlowSource> source_;
  std::shared_ptr<Transform> transform_;
  std::unique_ptr<TableSink> sink_;
  std::unique_ptr<TableSink> quarantine_sink_;  // when the flow has a quarantine table
  columnar::Schema output_schema_;
  std::optional<WatermarkTracker> tracker_;  // flows with a WATERMARK
  columnar::Schema dedup_schema_;            // DROP DUPLICATES: its input rows
  DeduplicateOptions dedup_options_;
  std::unique_ptr<Deduplicate> dedup_;  // open at dedup_version_ (a committed batch id, -1: none)
  int64_t dedup_version_ = -2;
  int64_t last_eviction_watermark_ms_ = 0;  // the watermark of the last batch that evicted state
  int64_t watermark_ms_ = 0;                // this batch's (offsets/N batchWatermarkMs)
  // processingTime=0: how long the last wait for an idle source was (0: not idle).
  static constexpr int64_t kFirstIdleWaitMs = 10;
  int64_t idle_wait_ms_ = 0;
  // processingTime=0: how long a due no-data batch waits for data, and whether it did.
  static constexpr int64_t kNoDataBatchDelayMs = 1000;
  bool no_data_batch_deferred_ = false;
  // Under processingTime=0 a Kafka batch of fewer rows than this is followed by a pause of
  // QueryOptions::coalesce_ms from its start.
  static constexpr int64_t kCoalesceBelowRows = 100000;
  int64_t last_planned_rows_ = 0;
  int64_t previous_watermark_ms_ = 0;       // the previous batch's: rows at or before it are late
  int64_t last_trigger_start_ms_ = 0;
  int64_t last_trim_ms_ = NowMs();  // when freed memory was last given back (malloc_trim)
  int64_t backfill_total_ = 0;  // availableNow: rows between the start and the end of the run
  int64_t backfill_done_ = 0;
  std::atomic<bool>* stop_ = nullptr;
  // StartReadAhead: the next batch, planned and being read while the current one commits.
  struct ReadAhead {
    std::string end;
    int64_t trigger_start_ms = 0;
    int64_t latest_ms = 0;
    int64_t get_batch_ms = 0;
    std::unique_ptr<Prefetcher<Chunk>> prefetcher;
  };
  std::optional<ReadAhead> read_ahead_;  // destroyed before source_, whose reader it uses
  // Chunks written by the encoding thread, freed by this one (RunBatch). Declared after source_:
  // a Kafka chunk's records need its client.
  ReleaseQueue releases_;
  // Set from StartReadAhead until the batch commits: the source's start before it moved.
  std::optional<std::string> uncommitted_start_;
};

StreamingQuery::StreamingQuery(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamingQuery::~StreamingQuery() = default;

Result<std::unique_ptr<StreamingQuery>> StreamingQuery::Open(fs::FileSystem* fs, FlowSpec spec,
                                                             QueryOptions options) {
  auto impl = std::make_unique<Impl>(fs, std::move(spec), std::move(options));
  WEIR_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<StreamingQuery>(new StreamingQuery(std::move(impl)));
}

Status StreamingQuery::Run() {
  if (closed_) return Status::InvalidArgument("the query of " + id() + " is closed");
  return impl_->Run(&stop_, &batches_run_, &rows_written_);
}

void StreamingQuery::Close() {
  closed_ = true;
  impl_->Close();
}

const std::string& StreamingQuery::id() const { return impl_->id(); }

}  // namespace weir::stream
