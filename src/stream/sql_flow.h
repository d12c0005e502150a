// Turns a pipeline's streaming-table definition (sql/pipeline.h) into a runnable flow: the
// read_kafka arguments as Spark Kafka options (secrets registered for redaction), the SELECT and
// WHERE as a vectorized Transform, and the table's place in the lakehouse. Thread-compatible.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "base/result.h"
#include "sql/pipeline.h"
#include "stream/streaming_query.h"

namespace weir::stream {

// The columns a quarantine table adds to the source row it keeps: why the row was rejected, and
// when (the batch's timestamp).
inline constexpr char kQuarantineReasonColumn[] = "quarantine_reason";
inline constexpr char kQuarantinedAtColumn[] = "quarantined_at";

struct LakehouseLayout {
  std::string root;  // tables at <root>/<catalog>/<schema>/<table>, checkpoints in <root>/_checkpoints
  std::string TablePath(const sql::TableIdentifier& name) const;
  std::string CheckpointDir(const sql::TableIdentifier& name) const;
};

// The flow of one streaming table. InvalidArgument for bad read_kafka options or SELECT lists
// (with their line and column); a flow reading a table binds its SELECT when it starts (the
// source table's schema is read then), so `definition` must outlive the flow's start.
// `settings` are the pipeline's SET values: spark.sql.ansi.enabled=true makes failed casts row
// errors (quarantined when the flow has a quarantine table, else the flow stops, as in Spark).
Result<FlowSpec> MakeFlow(const sql::StreamingTableDefinition& definition,
                          const LakehouseLayout& lakehouse,
                          const std::map<std::string, std::string>& settings = {});

}  // namespace weir::stream
