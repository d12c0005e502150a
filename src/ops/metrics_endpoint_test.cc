#include "ops/metrics_endpoint.h"

#include <nlohmann/json.hpp>

#include "base/testing.h"
#include "ops/http_client.h"
#include "ops/prometheus.h"
#include "ops/testing.h"

namespace weir::ops {
namespace {

using testing::KafkaBatch;

class MetricsEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MetricsEndpointOptions options;
    options.registry.now_ms = [this] { return now_.load(); };
    options.health.behind_window_ms = 4000;
    options.health_check_interval_ms = 20;
    options.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      log_.push_back(line);
    };
    ASSERT_OK_AND_ASSIGN(endpoint_, MetricsEndpoint::Start(std::move(options)));
    url_ = HttpUrl{"127.0.0.1", endpoint_->port(), "/"};
  }
  HttpResponse Get(const std::string& path) {
    auto r = HttpGet(url_, path);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : HttpResponse{};
  }

  std::atomic<int64_t> now_{1'700'000'000'000};
  std::unique_ptr<MetricsEndpoint> endpoint_;
  HttpUrl url_;
  std::mutex mutex_;
  std::vector<std::string> log_;
};

TEST_F(MetricsEndpointTest, ServesMetricsProgressHealthAndDashboard) {
  endpoint_->registry()->AddFlow("bronze");
  HttpResponse progress = Get("/progress");
  EXPECT_EQ(progress.status, 200);
  EXPECT_EQ(progress.content_type, "application/json");
  EXPECT_EQ(nlohmann::json::parse(progress.body)["bronze"], nullptr);

  auto p = KafkaBatch("bronze", 0, now_, {}, {{0, 10}}, {{0, 10}});
  p.sink_description = "DeltaSink[Endpoint=sb://x/;SharedAccessKey=topsecret]";
  endpoint_->registry()->Record(p);
  progress = Get("/progress");
  auto j = nlohmann::json::parse(progress.body);
  EXPECT_EQ(j["bronze"]["batchId"], 0);
  EXPECT_EQ(j["bronze"]["numInputRows"], 10);
  EXPECT_EQ(progress.body.find("topsecret"), std::string::npos);
  // By query id, as spark.streams.get(id).lastProgress; /queries lists them.
  const std::string id = j["bronze"]["id"].get<std::string>();
  HttpResponse one = Get("/progress/" + id);
  EXPECT_EQ(one.status, 200);
  EXPECT_EQ(nlohmann::json::parse(one.body)["name"], "bronze");
  EXPECT_EQ(Get("/progress/bronze").body, one.body);
  EXPECT_EQ(Get("/progress/no-such-query").status, 404);
  auto queries = nlohmann::json::parse(Get("/queries").body);
  ASSERT_EQ(queries.size(), 1u);
  EXPECT_EQ(queries[0]["id"], id);
  EXPECT_EQ(queries[0]["name"], "bronze");

  HttpResponse metrics = Get("/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.content_type, kPrometheusContentType);
  EXPECT_NE(metrics.body.find("weir_flow_input_rows_total{flow=\"bronze\"} 10\n"),
            std::string::npos);
  EXPECT_EQ(metrics.body.find("topsecret"), std::string::npos);

  HttpResponse health = Get("/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(nlohmann::json::parse(health.body)["status"], "healthy");

  HttpResponse page = Get("/");
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("/api/history"), std::string::npos);
  // Nothing fetched from other hosts: no external scripts, styles or images.
  EXPECT_EQ(page.body.find(" src="), std::string::npos);
  EXPECT_EQ(page.body.find("<link"), std::string::npos);
  EXPECT_EQ(page.body.find("https://"), std::string::npos);

  auto history = nlohmann::json::parse(Get("/api/history").body);
  ASSERT_EQ(history["flows"].size(), 1u);
  EXPECT_EQ(history["flows"][0]["history"]["t"].size(), 1u);
  EXPECT_EQ(history["flows"][0]["history"]["durationMs"]["addBatch"][0], 400);
  EXPECT_FALSE(history["flows"][0]["history"]["durationMs"].contains("triggerExecution"));
  EXPECT_EQ(history["flows"][0]["history"]["partitionOffsetsBehind"]["orders/0"][0], 0);
  EXPECT_EQ(Get("/nope").status, 404);
}

TEST_F(MetricsEndpointTest, HealthTurnsUnhealthyAndTheCheckerLogsIt) {
  int64_t end = 0, latest = 0;
  for (int i = 0; i < 8; ++i) {
    latest += 100;
    int64_t start = end;
    end += 10;
    endpoint_->registry()->Record(
        KafkaBatch("bronze", i, now_, {{0, start}}, {{0, end}}, {{0, latest}}));
    now_ += 1000;
  }
  HttpResponse health = Get("/health");
  EXPECT_EQ(health.status, 503);
  auto j = nlohmann::json::parse(health.body);
  EXPECT_EQ(j["status"], "unhealthy");
  ASSERT_EQ(j["reasons"].size(), 1u);
  EXPECT_NE(j["reasons"][0].get<std::string>().find("falling behind"), std::string::npos);
  EXPECT_NE(Get("/metrics").body.find("weir_flow_falling_behind{flow=\"bronze\"} 1\n"),
            std::string::npos);
  std::lock_guard<std::mutex> lock(mutex_);
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_EQ(log_[0].rfind("WARN bronze is unhealthy", 0), 0u);
}

TEST_F(MetricsEndpointTest, HandleWorksWithoutTheNetwork) {
  HttpRequest request;
  request.method = "GET";
  request.path = "/health";
  EXPECT_EQ(endpoint_->Handle(request).status, 200);
}

}  // namespace
}  // namespace weir::ops
