#include "cli/pipeline_settings.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::cli {
namespace {

// A pipeline's settings as the Databricks UI exports them for an Event Hubs ingestion pipeline.
constexpr char kSettings[] = R"({
  "clusters": [
    {
      "spark_conf": {
        "spark.hadoop.fs.azure.account.key.lake.dfs.core.windows.net": "{{secrets/lake/key}}"
      },
      "num_workers": 4
    },
    {"label": "maintenance", "spark_conf": {"ignored": "x"}}
  ],
  "development": true,
  "continuous": false,
  "channel": "CURRENT",
  "edition": "ADVANCED",
  "photon": false,
  "libraries": [{"notebook": {"path": "/Users/me/iot_pipeline"}}],
  "name": "dlt_eventhub_ingestion_using_kafka",
  "storage": "abfss://iot@lake.dfs.core.windows.net/iot/",
  "configuration": {
    "iot.ingestion.eh.namespace": "my-namespace",
    "iot.ingestion.spark.maxOffsetsPerTrigger": "50000",
    "iot.ingestion.kafka.requestTimeout": 60000
  },
  "target": "iot"
})";

TEST(PipelineSettingsTest, ReadsWhatWeirUsesAndListsTheRest) {
  ASSERT_OK_AND_ASSIGN(PipelineSettings s, ParsePipelineSettings(kSettings, "pipeline.json"));
  EXPECT_EQ(s.configuration,
            (std::map<std::string, std::string>{
                {"iot.ingestion.eh.namespace", "my-namespace"},
                {"iot.ingestion.kafka.requestTimeout", "60000"},
                {"iot.ingestion.spark.maxOffsetsPerTrigger", "50000"}}));
  EXPECT_EQ(s.spark_conf, (std::map<std::string, std::string>{
                              {"spark.hadoop.fs.azure.account.key.lake.dfs.core.windows.net",
                               "{{secrets/lake/key}}"}}))
      << "only the default cluster's spark_conf";
  EXPECT_EQ(s.continuous, false);
  EXPECT_EQ(s.development, true);
  EXPECT_EQ(s.storage, "abfss://iot@lake.dfs.core.windows.net/iot/");
  EXPECT_EQ(s.schema, "iot");
  EXPECT_FALSE(s.catalog.has_value());
  EXPECT_EQ(s.libraries, std::vector<std::string>{"/Users/me/iot_pipeline"});
  EXPECT_EQ(s.unused, (std::vector<std::string>{"channel", "clusters[0].num_workers",
                                                "clusters[1].spark_conf", "edition", "name",
                                                "photon"}));
}

TEST(PipelineSettingsTest, SchemaAndCatalogOfUnityCatalogPipelines) {
  ASSERT_OK_AND_ASSIGN(PipelineSettings s,
                       ParsePipelineSettings(R"({"catalog": "main", "schema": "bronze",
                                                 "continuous": "true",
                                                 "libraries": [{"file": {"path": "p.sql"}}]})",
                                             "p.json"));
  EXPECT_EQ(s.catalog, "main");
  EXPECT_EQ(s.schema, "bronze");
  EXPECT_EQ(s.continuous, true);
  EXPECT_EQ(s.libraries, std::vector<std::string>{"p.sql"});
  EXPECT_TRUE(s.unused.empty());
}

TEST(PipelineSettingsTest, ErrorsNameTheFileAndTheSettingButNoValue) {
  struct Case {
    const char* json;
    const char* message;
  };
  for (const Case& c : {
           Case{"{", "p.json: not a JSON document"},
           Case{"[1]", "p.json: expected a JSON object of pipeline settings"},
           Case{R"({"configuration": {"k": {"secret": "hunter2"}}})",
                "p.json: \"configuration\" value of k must be a string, a number or a boolean"},
           Case{R"({"continuous": "sometimes"})", "p.json: \"continuous\" must be true or false"},
           Case{R"({"target": "a", "schema": "b"})", "give one of \"target\" and \"schema\""},
           Case{R"({"libraries": [{"file": {}}]})", "p.json: libraries[0].file needs a \"path\""},
           Case{R"({"storage": ""})", "p.json: \"storage\" must be a non-empty string"},
       }) {
    auto parsed = ParsePipelineSettings(c.json, "p.json");
    ASSERT_STATUS_CODE(kInvalidArgument, parsed);
    EXPECT_NE(parsed.status().message().find(c.message), std::string::npos)
        << parsed.status().ToString();
    EXPECT_EQ(parsed.status().message().find("hunter2"), std::string::npos);
  }
}

}  // namespace
}  // namespace weir::cli
