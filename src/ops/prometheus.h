// Renders flows' metrics and health as Prometheus text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/): one `# HELP` and `# TYPE` per
// family, label values escaped, families in a fixed order. Names and units: docs/operations.md.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ops/health_monitor.h"
#include "ops/metrics_registry.h"

namespace weir::ops {

inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

std::string RenderPrometheus(const std::vector<FlowMetrics>& flows, const HealthReport& health);

// A label value with backslash, double quote and newline escaped.
std::string EscapeLabelValue(std::string_view value);

}  // namespace weir::ops
