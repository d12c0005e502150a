// `weir status URL`: a human view of a running pipeline's metrics endpoint (weir run
// --metrics-port): health with its reasons, and per flow the latest batch, its durationMs split,
// the lag per partition, time behind, totals and expectation counts. Exit 0 healthy, 1 unhealthy,
// 2 when the endpoint cannot be read.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/flags.h"
#include "ops/http_client.h"

namespace weir::cli {
namespace {

std::string Number(const nlohmann::json& v) {
  if (!v.is_number()) return "-";
  double d = v.get<double>();
  char buf[64];
  if (d == static_cast<double>(static_cast<long long>(d))) {
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(d));
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f", d);
  }
  return buf;
}

std::string Bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

void PrintFlow(const nlohmann::json& f) {
  std::string status = f.value("status", f.value("healthy", true) ? "healthy" : "unhealthy");
  if (status == "unhealthy") status = "UNHEALTHY";
  if (status == "retrying") status = "RETRYING";
  std::printf("\n%s: %s\n", f.value("name", "?").c_str(), status.c_str());
  for (const auto& r : f.value("reasons", nlohmann::json::array())) {
    if (r.is_string()) std::printf("  ! %s\n", r.get<std::string>().c_str());
  }
  const auto& recent = f["recentProgress"];
  if (!recent.is_array() || recent.empty()) {
    std::printf("  no batch yet\n");
  } else {
    const auto& p = recent.back();
    std::printf("  batch %s at %s: %s rows in %.2f s (input %s rows/s, processed %s rows/s)\n",
                Number(p["batchId"]).c_str(), p.value("timestamp", "?").c_str(),
                Number(p["numInputRows"]).c_str(), p.value("batchDuration", 0) / 1000.0,
                Number(p["inputRowsPerSecond"]).c_str(),
                Number(p["processedRowsPerSecond"]).c_str());
    std::string parts;
    for (const auto& [k, v] : p["durationMs"].items()) {
      if (k == "triggerExecution") continue;
      parts += (parts.empty() ? "" : ", ") + k + " " + Number(v);
    }
    std::printf("  durationMs: %s\n", parts.c_str());
  }
  std::string lag;
  int64_t behind = 0;
  for (const auto& p : f["partitions"]) {
    behind += p.value("behind", int64_t{0});
    lag += (lag.empty() ? "" : ", ") + p.value("topic", "") + "/" + p.value("partition", "") + " " +
           Number(p["behind"]);
  }
  std::printf("  behind: %lld offsets%s", static_cast<long long>(behind),
              lag.empty() ? "" : (" (" + lag + ")").c_str());
  if (f.contains("estimatedBytesBehind")) {
    std::printf(", ~%s", Bytes(f["estimatedBytesBehind"].get<double>()).c_str());
  }
  std::printf(", time behind %.1f s\n", f.value("timeBehindMs", int64_t{0}) / 1000.0);
  std::printf("  over the falling-behind window%s: arrival %s rows/s, committed %s rows/s\n",
              f.value("windowFull", true) ? "" : " (not yet full: since the first batches)",
              Number(f["arrivalRowsPerSecond"]).c_str(),
              Number(f["committedRowsPerSecond"]).c_str());
  const auto& t = f["totals"];
  std::printf("  this run: %s batches, %s rows in, %s rows out, %s files",
              Number(t["batches"]).c_str(), Number(t["inputRows"]).c_str(),
              Number(t["outputRows"]).c_str(), Number(t["filesWritten"]).c_str());
  for (const char* k : {"quarantined", "droppedByExpectations", "duplicatesDropped",
                        "lateRowsDropped", "dataLossEvents"}) {
    if (t.value(k, int64_t{0}) > 0) std::printf(", %s %s", Number(t[k]).c_str(), k);
  }
  std::printf("\n");
  for (const auto& e : f.value("expectations", nlohmann::json::array())) {
    std::printf("  expectation %s: %s passed, %s failed\n", e.value("name", "?").c_str(),
                Number(e["passed"]).c_str(), Number(e["failed"]).c_str());
  }
  if (f.value("finished", false)) std::printf("  (the flow's run has ended)\n");
}

int StatusMain(const Flags& flags) {
  auto url = ops::ParseHttpUrl(flags.positional()[0]);
  if (!url.ok()) return Fail(url.status());
  auto response = ops::HttpGet(*url, "/api/history");
  if (!response.ok()) return Fail(response.status());
  if (response->status != 200) {
    return Fail(Status::Unavailable("the endpoint answered HTTP " +
                                    std::to_string(response->status) + " for /api/history (is " +
                                    flags.positional()[0] + " a weir metrics endpoint?)"));
  }
  auto j = nlohmann::json::parse(response->body, nullptr, false);
  if (!j.is_object() || !j["flows"].is_array()) {
    return Fail(
        Status::Corruption("not a weir metrics endpoint answer from " + flags.positional()[0]));
  }
  if (flags.GetBool("json")) {
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::string status = j.value("status", j.value("healthy", true) ? "healthy" : "unhealthy");
    if (status != "healthy") {
      for (char& c : status) c = static_cast<char>(c - 'a' + 'A');
    }
    std::printf("weir at %s: %s (%zu flows)\n", flags.positional()[0].c_str(), status.c_str(),
                j["flows"].size());
    for (const auto& f : j["flows"]) PrintFlow(f);
  }
  return j.value("healthy", true) ? 0 : 1;
}

int RunStatus(const std::vector<std::string>& args) {
  Flags flags(
      "weir status URL [--json]",
      "Prints what a running `weir run --metrics-port` endpoint knows: health and why, and\n"
      "per flow the latest batch and its durationMs parts, offsets behind per partition,\n"
      "time behind, this run's totals and expectation counts. URL is like\n"
      "http://127.0.0.1:9108. Exit status: 0 healthy, 1 unhealthy, 2 unreachable.");
  flags.Positional("URL", 1, 1);
  flags.Bool("json", "print the endpoint's JSON (history included) instead");
  return RunWithFlags(flags, args, StatusMain);
}

WEIR_REGISTER_COMMAND(status_cmd, "status",
                      "show a running pipeline's health, lag and rates (metrics endpoint)",
                      RunStatus);

}  // namespace
}  // namespace weir::cli
