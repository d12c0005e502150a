// Protocol versions and table features (PROTOCOL.md "Table Features"): which tables weir can read
// and which it can write. Refusals are NotImplemented naming the feature (or version) so that the
// user knows exactly why; weir never reads or writes a table whose protocol it does not honour.
//
// Reading: reader versions 1-3. Column mapping (reader version 2, or feature columnMapping) in
// `name` mode, and in `id` mode by physical names; features timestampNtz, columnMapping,
// deletionVectors (only while no live file carries a deletion vector, checked by Snapshot),
// v2Checkpoint, vacuumProtocolCheck. Writing: writer versions 1-7 with features appendOnly,
// invariants and checkConstraints (only while no invariant/constraint is defined),
// changeDataFeed (appends only need no CDC files), timestampNtz, vacuumProtocolCheck; no column
// mapping, generated or identity columns. Pure functions; thread-safe.
#pragma once

#include <string>

#include "base/status.h"
#include "columnar/types.h"
#include "delta/actions.h"

namespace weir::delta {

enum class ColumnMappingMode { kNone, kName, kId };

// The table's delta.columnMapping.mode, honoured only when the protocol supports column mapping.
ColumnMappingMode GetColumnMappingMode(const Protocol& protocol, const Metadata& metadata);

// True when the protocol lists `feature` among its reader (or writer) features.
bool HasReaderFeature(const Protocol& protocol, const std::string& feature);
bool HasWriterFeature(const Protocol& protocol, const std::string& feature);

// NotImplemented naming the first unsupported reader version or feature. `table` names the table.
Status CheckReadSupported(const Protocol& protocol, const Metadata& metadata,
                          const std::string& table);
// CheckReadSupported, then the writer side (writers must read the table first).
Status CheckWriteSupported(const Protocol& protocol, const Metadata& metadata,
                           const columnar::Schema& schema, const std::string& table);

// The protocol weir gives the tables it creates: reader 1 / writer 2, or reader 3 / writer 7 with
// the timestampNtz feature when the schema holds TIMESTAMP_NTZ columns.
Protocol ProtocolForNewTable(const columnar::Schema& schema);

}  // namespace weir::delta
