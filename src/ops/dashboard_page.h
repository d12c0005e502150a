// The live dashboard served at `/` of the metrics endpoint, like Spark UI's Structured Streaming
// tab: per flow, input vs processing rate, the batch duration split into its durationMs parts,
// offsets behind per partition and time behind over the last hour, the latest progress records
// and expectation counts. One self-contained HTML page (inline script and SVG charts, nothing
// fetched from other hosts) that polls `/api/history` every two seconds. Thread-safe (constant).
#pragma once

#include <string_view>

namespace weir::ops {

std::string_view DashboardHtml();

}  // namespace weir::ops
