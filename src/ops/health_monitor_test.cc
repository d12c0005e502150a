#include "ops/health_monitor.h"

#include <gtest/gtest.h>

#include "ops/testing.h"

namespace weir::ops {
namespace {

using testing::KafkaBatch;

class HealthMonitorTest : public ::testing::Test {
 protected:
  HealthMonitorTest() {
    MetricsRegistryOptions o;
    o.now_ms = [this] { return now_; };
    registry_ = std::make_unique<MetricsRegistry>(o);
    options_.behind_window_ms = 10'000;
    options_.retention_ms = 3'600'000;
    options_.retention_fraction = 0.5;
  }
  // One batch a second for `seconds`: `arrive` new offsets per second, `read` read per batch.
  void Run(int seconds, int64_t arrive, int64_t read) {
    for (int i = 0; i < seconds; ++i) {
      latest_ += arrive;
      int64_t start = end_;
      end_ = std::min(latest_, end_ + read);
      registry_->Record(
          KafkaBatch("bronze", batch_++, now_, {{0, start}}, {{0, end_}}, {{0, latest_}}));
      now_ += 1000;
    }
  }
  HealthReport Evaluate(HealthMonitor& monitor) {
    return monitor.Evaluate(registry_->Snapshot(), now_);
  }

  int64_t now_ = 5'000'000;
  int64_t latest_ = 0, end_ = 0, batch_ = 0;
  HealthOptions options_;
  std::unique_ptr<MetricsRegistry> registry_;
  std::vector<std::string> log_;
};

TEST_F(HealthMonitorTest, KeepingUpIsHealthy) {
  HealthMonitor monitor(options_, [this](const std::string& l) { log_.push_back(l); });
  Run(30, 100, 1000);
  HealthReport r = Evaluate(monitor);
  EXPECT_TRUE(r.healthy);
  ASSERT_EQ(r.flows.size(), 1u);
  EXPECT_FALSE(r.flows[0].falling_behind);
  EXPECT_NEAR(r.flows[0].arrival_rows_per_second, 100, 1);
  EXPECT_NEAR(r.flows[0].committed_rows_per_second, 100, 1);
  EXPECT_TRUE(log_.empty());
  EXPECT_NE(r.ToJson().find("\"status\":\"healthy\""), std::string::npos);
}

TEST_F(HealthMonitorTest, InputFasterThanProcessingForTheWindowIsUnhealthyAndLoggedOnce) {
  HealthMonitor monitor(options_, [this](const std::string& l) { log_.push_back(l); });
  Run(5, 300, 100);  // behind, but for less than the window
  EXPECT_TRUE(Evaluate(monitor).healthy);
  Run(8, 300, 100);
  HealthReport r = Evaluate(monitor);
  ASSERT_FALSE(r.healthy);
  EXPECT_TRUE(r.flows[0].falling_behind);
  EXPECT_FALSE(r.flows[0].retention_at_risk);
  EXPECT_NEAR(r.flows[0].arrival_rows_per_second, 300, 1);
  EXPECT_NEAR(r.flows[0].committed_rows_per_second, 100, 1);
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_EQ(log_[0].rfind("WARN bronze is unhealthy: falling behind: input 300.0 rows/s > "
                          "processing 100.0 rows/s over the last 10s",
                          0),
            0u)
      << log_[0];
  Evaluate(monitor);
  EXPECT_EQ(log_.size(), 1u);  // no repeat while the state holds
  EXPECT_NE(r.ToJson().find("\"status\":\"unhealthy\""), std::string::npos);

  Run(20, 100, 5000);  // catches up
  r = Evaluate(monitor);
  EXPECT_TRUE(r.healthy);
  ASSERT_EQ(log_.size(), 2u);
  EXPECT_EQ(log_[1], "bronze is healthy again");
}

TEST_F(HealthMonitorTest, RecoveringInTheRecentHalfClearsIt) {
  HealthMonitor monitor(options_, nullptr);
  Run(10, 300, 100);
  EXPECT_FALSE(Evaluate(monitor).healthy);
  Run(6, 100, 600);  // draining the backlog: committed now outpaces arrival
  EXPECT_TRUE(Evaluate(monitor).healthy);
}

TEST_F(HealthMonitorTest, OldestUnprocessedEventNearRetentionIsUnhealthy) {
  options_.behind_window_ms = 3'600'000;  // the rate check cannot fire here
  options_.retention_ms = 16'000;
  HealthMonitor monitor(options_, nullptr);
  Run(5, 100, 50);
  // The oldest unread offset (250) was first seen in the third batch (latest 300), 9 s before.
  now_ += 6'000;
  HealthReport r = Evaluate(monitor);
  EXPECT_EQ(registry_->Snapshot()[0].time_behind_ms, 9'000);
  ASSERT_FALSE(r.healthy) << r.ToJson();
  EXPECT_TRUE(r.flows[0].retention_at_risk);
  EXPECT_FALSE(r.flows[0].falling_behind);
  EXPECT_NEAR(r.flows[0].retention_used, 9.0 / 16, 0.001);
  EXPECT_NE(r.flows[0].reasons[0].find("retention"), std::string::npos);
}

TEST_F(HealthMonitorTest, AFailedFlowIsUnhealthy) {
  HealthMonitor monitor(options_, nullptr);
  Run(2, 10, 10);
  registry_->MarkFinished("bronze", "IOError: cannot write /lake/x");
  HealthReport r = Evaluate(monitor);
  EXPECT_FALSE(r.healthy);
  EXPECT_TRUE(r.flows[0].failed);
  EXPECT_NE(r.ToJson().find("cannot write /lake/x"), std::string::npos);
}

TEST_F(HealthMonitorTest, SparkRatesAloneCanShowFallingBehind) {
  HealthMonitor monitor(options_, nullptr);
  for (int i = 0; i < 15; ++i) {  // a source without offsets we understand
    stream::QueryProgress p;
    p.name = "silver";
    p.timestamp_ms = now_;
    p.input_rows_per_second = 200;
    p.processed_rows_per_second = 150;
    registry_->Record(p);
    now_ += 1000;
  }
  HealthReport r = Evaluate(monitor);
  ASSERT_FALSE(r.healthy);
  EXPECT_TRUE(r.flows[0].falling_behind);
  EXPECT_NE(r.flows[0].reasons[0].find("inputRowsPerSecond 200.0 > processedRowsPerSecond 150.0"),
            std::string::npos);
}

TEST(FormatDurationMs, Units) {
  EXPECT_EQ(FormatDurationMs(3500), "3.5s");
  EXPECT_EQ(FormatDurationMs(600000), "10m0s");
  EXPECT_EQ(FormatDurationMs(7200000), "2h0m");
}

}  // namespace
}  // namespace weir::ops
