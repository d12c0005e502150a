#include "stream/pipeline.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "delta/snapshot.h"
#include "delta/table.h"
#include "delta/table_config.h"
#include "base/text.h"
#include "stream/kafka_rows.h"
#include "stream/table_sink.h"

namespace weir::stream {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Adds a batch's counts to a flow's totals.
void AddToTotals(const QueryProgress& p, FlowRunSummary* total) {
  total->input_rows += p.num_input_rows;
  for (const StateOperatorProgress& op : p.state_operators) {
    auto duplicates = op.custom_metrics.find("numDroppedDuplicateRows");
    if (duplicates != op.custom_metrics.end()) total->duplicates_dropped += duplicates->second;
    total->late_rows_dropped += op.num_rows_dropped_by_watermark;
  }
  auto quality = p.extra.find("data_quality");
  if (quality == p.extra.end()) return;
  auto j = nlohmann::json::parse(quality->second, nullptr, false);
  if (!j.is_object()) return;
  auto count = [&j](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{0};
  };
  total->quarantined += count("quarantined_records");
  total->dropped_by_expectations += count("dropped_records");
}

}  // namespace

struct Pipeline::Flow {
  std::string name;
  FlowSpec spec;
  QueryOptions options;
  std::unique_ptr<StreamingQuery> query;  // null between a transient failure and its reopening
  FlowRunSummary totals;                  // of the queries closed so far, plus progress
  // A batch succeeded since the last failure: the next failure starts a new streak.
  std::atomic<bool> batch_succeeded{false};
};

Pipeline::Pipeline(fs::FileSystem* fs, PipelineOptions options)
    : fs_(fs), options_(std::move(options)) {}

Pipeline::~Pipeline() {
  for (auto& flow : flows_) CloseQuery(*flow);
}

Result<std::unique_ptr<Pipeline>> Pipeline::Open(fs::FileSystem* fs,
                                                 const sql::Pipeline& definition,
                                                 PipelineOptions options) {
  std::vector<const sql::StreamingTableDefinition*> selected;
  for (const auto& table : definition.tables) {
    const std::string name = table.name.ToString();
    if (options.tables.empty() ||
        std::find(options.tables.begin(), options.tables.end(), name) != options.tables.end()) {
      selected.push_back(&table);
    }
  }
  for (const std::string& name : options.tables) {
    auto defined = std::find_if(selected.begin(), selected.end(),
                                [&](const auto* t) { return t->name.ToString() == name; });
    if (defined == selected.end()) {
      return Status::InvalidArgument("--tables names " + name +
                                     ", which the pipeline does not define as a streaming table");
    }
  }
  if (selected.empty()) return Status::InvalidArgument("the pipeline defines no streaming table");

  std::unique_ptr<Pipeline> pipeline(new Pipeline(fs, std::move(options)));
  const PipelineOptions& o = pipeline->options_;
  int64_t coalesce_ms = QueryOptions().coalesce_ms;
  if (auto it = definition.settings.find(kCoalesceSetting); it != definition.settings.end()) {
    auto ms = ParseInt64(it->second, kCoalesceSetting);
    if (!ms.ok() || *ms < 0 || *ms > 60000) {
      return Status::InvalidArgument(std::string(kCoalesceSetting) +
                                     " must be a number of milliseconds from 0 to 60000, got '" +
                                     it->second + "'");
    }
    coalesce_ms = *ms;
  }
  // Every flow is made and checked before any is opened: a pipeline that fails validation
  // writes nothing (no table, no checkpoint folder).
  for (const sql::StreamingTableDefinition* table : selected) {
    auto flow = std::make_unique<Flow>();
    flow->name = table->name.ToString();
    flow->totals.table = flow->name;
    WEIR_ASSIGN_OR_RETURN(flow->spec, MakeFlow(*table, o.lakehouse, definition.settings));
    QueryOptions& q = flow->options;
    q.trigger = o.trigger;
    q.coalesce_ms = coalesce_ms;
    q.workers_group = o.workers_group;
    q.log = o.log;
    q.on_backfill = o.on_backfill;
    Flow* f = flow.get();
    Pipeline* self = pipeline.get();
    q.on_progress = [self, f](const QueryProgress& p) {
      AddToTotals(p, &f->totals);
      if (!f->batch_succeeded.exchange(true)) {
        self->Report(FlowState{f->name, FlowState::Kind::kRunning, Status::OK(), 0, 0, 0});
      }
      if (self->options_.on_progress) self->options_.on_progress(p);
    };
    pipeline->flows_.push_back(std::move(flow));
  }
  WEIR_RETURN_NOT_OK(pipeline->Validate());
  WEIR_RETURN_NOT_OK(pipeline->ValidateAlterations(definition));
  WEIR_RETURN_NOT_OK(pipeline->ApplyAlterations(definition));
  for (auto& flow : pipeline->flows_) {
    Status opened = pipeline->OpenQuery(*flow);
    if (!opened.ok() && !opened.IsUnavailable()) return opened.WithContext(flow->name);
  }
  return pipeline;
}

Status Pipeline::ApplyAlterations(const sql::Pipeline& definition) {
  for (const sql::TableAlteration& a : definition.alterations) {
    const std::string name = a.table.ToString();
    const std::string where = a.location.ToString() + ": ALTER TABLE " + name;
    // A flow writing the table carries the change in its TBLPROPERTIES too, so its sink (which
    // applies a definition's changed properties) agrees with the ALTER that follows it.
    auto flow = std::find_if(flows_.begin(), flows_.end(),
                             [&](const auto& f) { return f->name == name; });
    if (flow != flows_.end()) {
      for (const auto& [key, value] : a.set) (*flow)->spec.table_properties[key] = value;
      for (const std::string& key : a.unset) (*flow)->spec.table_properties.erase(key);
    }
    auto table = delta::Table::Open(fs_, options_.lakehouse.TablePath(a.table));
    if (!table.ok() && table.status().IsNotFound()) {
      if (flow != flows_.end()) continue;  // created by its flow with the properties
      return Status::InvalidArgument(where +
                                     ": the table does not exist and the pipeline does not "
                                     "define it");
    }
    if (!table.ok()) return table.status().WithContext(where);
    // A pipeline file is applied at every run: its ALTERs state the properties wanted, so
    // unsetting one the table no longer has is not an error (as if IF EXISTS were written).
    auto altered = (*table)->AlterProperties(a.set, a.unset, std::nullopt, /*if_exists=*/true);
    if (!altered.ok()) return altered.status().WithContext(where);
    if (altered->committed && options_.log) {
      options_.log("ALTER TABLE " + name + ": table properties changed (version " +
                   std::to_string(altered->version) + ")");
    }
  }
  return Status::OK();
}

Status Pipeline::Validate() {
  std::map<std::string, columnar::Schema> outputs;  // of the flows checked so far, by table
  for (auto& flow : flows_) {
    const FlowSpec& spec = flow->spec;
    auto fail = [&](const Status& st) { return st.WithContext(flow->name); };
    columnar::Schema input;
    if (spec.kafka) {
      input = KafkaSourceSchema(spec.kafka->include_headers);
    } else if (spec.delta) {
      auto upstream = outputs.find(spec.delta->name);
      if (upstream != outputs.end()) {
        input = upstream->second;
      } else {
        auto source = delta::Snapshot::Load(fs_, spec.delta->path);
        if (!source.ok() && source.status().IsNotFound()) {
          return fail(Status::InvalidArgument(
              "the source table " + spec.delta->name + " does not exist (" + spec.delta->path +
              ") and the pipeline does not define it; run the pipeline that writes it first"));
        }
        if (!source.ok()) {
          if (source.status().IsUnavailable()) continue;  // checked again when the flow opens
          return fail(source.status());
        }
        input = (*source)->schema();
      }
    } else {
      return fail(Status::InvalidArgument("flow " + spec.name + " has no source"));
    }
    columnar::Schema output = input;
    std::optional<columnar::Schema> quarantine;
    if (spec.make_transform) {
      auto transform = spec.make_transform(input);
      if (!transform.ok()) return fail(transform.status());
      output = (*transform)->output_schema();
      if (const columnar::Schema* q = (*transform)->quarantine_schema()) quarantine = *q;
    }
    auto fits_existing = [&](const std::string& path, const std::string& name,
                             const columnar::Schema& schema) -> Status {
      auto existing = delta::Snapshot::Load(fs_, path);
      if (existing.ok()) return CheckFlowFitsTable((*existing)->schema(), schema, path, name).status();
      if (existing.status().IsNotFound() || existing.status().IsUnavailable()) return Status::OK();
      return existing.status();
    };
    if (Status st = fits_existing(spec.table_path, spec.name, output); !st.ok()) return fail(st);
    if (quarantine) {
      Status st = fits_existing(spec.quarantine_path, spec.quarantine_name, *quarantine);
      if (!st.ok()) return fail(st);
    }
    outputs[spec.name] = std::move(output);
  }
  return Status::OK();
}

Status Pipeline::ValidateAlterations(const sql::Pipeline& definition) const {
  // Each table's properties as the alterations before this one leave them.
  std::map<std::string, delta::StringMap> properties;
  for (const sql::TableAlteration& a : definition.alterations) {
    const std::string name = a.table.ToString();
    const std::string where = a.location.ToString() + ": ALTER TABLE " + name;
    Status keys = delta::ParseTableConfig(delta::StringMap(a.set.begin(), a.set.end()),
                                          /*strict=*/true).status();
    if (!keys.ok()) return keys.WithContext(where);
    auto known = properties.find(name);
    if (known == properties.end()) {
      auto snapshot = delta::Snapshot::Load(fs_, options_.lakehouse.TablePath(a.table));
      if (snapshot.ok()) {
        known = properties.emplace(name, (*snapshot)->properties()).first;
      } else if (!snapshot.status().IsNotFound()) {
        return snapshot.status().WithContext(where);
      } else {
        auto flow = std::find_if(flows_.begin(), flows_.end(),
                                 [&](const auto& f) { return f->name == name; });
        if (flow == flows_.end()) {
          return Status::InvalidArgument(where +
                                         ": the table does not exist and the pipeline does not "
                                         "define it");
        }
        const auto& defined = (*flow)->spec.table_properties;
        known = properties.emplace(name, delta::StringMap(defined.begin(), defined.end())).first;
      }
    }
    for (const auto& [key, value] : a.set) known->second[key] = value;
    for (const std::string& key : a.unset) known->second.erase(key);
  }
  return Status::OK();
}

Status Pipeline::OpenQuery(Flow& flow) {
  WEIR_ASSIGN_OR_RETURN(auto query, StreamingQuery::Open(fs_, flow.spec, flow.options));
  std::lock_guard<std::mutex> lock(mutex_);
  flow.query = std::move(query);
  if (stop_.load()) flow.query->RequestStop();
  return Status::OK();
}

void Pipeline::CloseQuery(Flow& flow) {
  std::unique_ptr<StreamingQuery> query;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    query = std::move(flow.query);
  }
  if (!query) return;
  query->Close();
  flow.totals.batches += query->batches_run();
  flow.totals.rows_written += query->rows_written();
}

void Pipeline::Report(const FlowState& state) {
  if (options_.on_flow_state) options_.on_flow_state(state);
}

bool Pipeline::Backoff(int64_t ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  wake_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_.load(); });
  return !stop_.load();
}

void Pipeline::RequestStop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
    for (auto& flow : flows_) {
      if (flow->query) flow->query->RequestStop();
    }
  }
  wake_.notify_all();
}

Status Pipeline::RunFlow(Flow& flow) {
  const bool unbounded = options_.trigger.kind == Trigger::Kind::kProcessingTime;
  int attempt = 0;
  int64_t failing_since_ms = 0;
  while (true) {
    Status st = flow.query ? Status::OK() : OpenQuery(flow);
    if (st.ok()) {
      flow.batch_succeeded.store(false);
      st = flow.query->Run();
    }
    if (st.ok() || stop_.load() || !st.IsUnavailable()) {
      CloseQuery(flow);
      Report(FlowState{flow.name, FlowState::Kind::kFinished, st, 0, 0, 0});
      return st;
    }
    // A transient failure: reopen from the checkpoint after a backoff. A batch that succeeded
    // since the last failure ends the streak.
    if (flow.batch_succeeded.load()) attempt = 0;
    if (attempt == 0) failing_since_ms = NowMs();
    ++attempt;
    CloseQuery(flow);
    if (!unbounded && attempt > options_.retry.max_retries) {
      Status gave_up = st.WithContext("gave up after " + std::to_string(options_.retry.max_retries) +
                                      " retries (a processingTime trigger retries without end)");
      Report(FlowState{flow.name, FlowState::Kind::kFinished, gave_up, 0, 0, 0});
      return gave_up;
    }
    const int shift = std::min(attempt - 1, 20);
    const int64_t backoff =
        std::min(options_.retry.initial_backoff_ms << shift, options_.retry.max_backoff_ms);
    ++flow.totals.retries;
    if (options_.log) {
      options_.log("WARN " + flow.name + ": retrying in " + std::to_string(backoff) +
                   " ms (retry " + std::to_string(attempt) + " since the failure at " +
                   FormatProgressTimestamp(failing_since_ms) + "): " + st.ToString());
    }
    Report(FlowState{flow.name, FlowState::Kind::kRetrying, st, failing_since_ms, attempt,
                     backoff});
    if (!Backoff(backoff)) {
      Report(FlowState{flow.name, FlowState::Kind::kFinished, Status::OK(), 0, 0, 0});
      return Status::OK();
    }
  }
}

Status Pipeline::Run() {
  std::vector<Status> results(flows_.size());
  if (options_.trigger.kind == Trigger::Kind::kProcessingTime && flows_.size() > 1) {
    // Continuous mode: every flow at once, each on its own thread; one failing stops the others.
    std::vector<std::thread> threads;
    for (size_t i = 0; i < flows_.size(); ++i) {
      threads.emplace_back([this, &results, i] {
        results[i] = RunFlow(*flows_[i]);
        if (!results[i].ok()) RequestStop();
      });
    }
    for (auto& t : threads) t.join();
  } else {
    // availableNow / once: flows in the file's order (upstream tables first).
    for (size_t i = 0; i < flows_.size() && !stop_.load(); ++i) {
      results[i] = RunFlow(*flows_[i]);  // the flow's query is closed afterwards
      if (i + 1 < flows_.size() && options_.between_flows) options_.between_flows();
      if (!results[i].ok()) break;
    }
  }
  for (size_t i = 0; i < flows_.size(); ++i) {
    if (results[i].ok()) continue;
    if (results[i].IsCancelled() && stop_.load()) continue;  // stopped on request
    return results[i].WithContext(flows_[i]->name);
  }
  return Status::OK();
}

std::vector<FlowRunSummary> Pipeline::Summaries() const {
  std::vector<FlowRunSummary> out;
  for (const auto& flow : flows_) {
    FlowRunSummary s = flow->totals;
    if (flow->query) {  // still open (Run was not called)
      s.batches += flow->query->batches_run();
      s.rows_written += flow->query->rows_written();
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace weir::stream
