#include "cli/file_systems.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "base/testing.h"
#include "fs/local_file_system.h"

namespace weir::cli {
namespace {

using azure::AzureCredentials;
using Settings = std::map<std::string, std::string>;

constexpr char kKey[] = "a2V5LWJ5dGVzLWZvci10ZXN0cw==";

azure::BlobLocation Location(const std::string& url) {
  return azure::ParseAzureUrl(url).ValueOrDie();
}

// Secrets from a fixed map instead of the environment.
sql::SecretResolver Secrets() {
  sql::SecretResolver secrets([](const std::string& name) -> std::optional<std::string> {
    if (name == "WEIR_SECRET_ADLS_KEY") return std::string(kKey);
    if (name == "WEIR_SECRET_ADLS_SP") return std::string("sp-secret");
    return std::nullopt;
  });
  return secrets;
}

// Clears the AZURE_* variables for one test (the environment fallback).
class ResolveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "AZURE_STORAGE_ACCOUNT_KEY",
                             "AZURE_STORAGE_SAS_TOKEN", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET",
                             "AZURE_TENANT_ID", "AZURE_AUTHORITY_HOST"}) {
      unsetenv(name);
    }
  }
  Result<AzureCredentials> Resolve(const std::string& url, const Settings& settings) {
    return ResolveAzureCredentials(Location(url), settings, Secrets());
  }
};

TEST_F(ResolveTest, AccountKeyFromASecretForTheDfsOrBlobHost) {
  for (const std::string host : {"dfs", "blob"}) {
    SCOPED_TRACE(host);
    Settings s{{"fs.azure.account.key.acct." + host + ".core.windows.net", "secret('adls', 'key')"}};
    ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", s));
    EXPECT_EQ(c.kind, AzureCredentials::Kind::kSharedKey);
    EXPECT_EQ(c.account_key, kKey);
  }
}

TEST_F(ResolveTest, DatabricksSecretSyntaxAndPlainValues) {
  Settings s{{"fs.azure.account.key.acct.dfs.core.windows.net", "{{secrets/adls/key}}"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("https://acct.blob.core.windows.net/lake/t", s));
  EXPECT_EQ(c.account_key, kKey);
  Settings plain{{"fs.azure.account.key.acct.dfs.core.windows.net", "'plainkey'"}};
  ASSERT_OK_AND_ASSIGN(auto p, Resolve("https://acct.blob.core.windows.net/lake/t", plain));
  EXPECT_EQ(p.account_key, "plainkey");
}

TEST_F(ResolveTest, AnotherAccountsKeyIsNotUsed) {
  Settings s{{"fs.azure.account.key.other.dfs.core.windows.net", "{{secrets/adls/key}}"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", s));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kAnonymous);
}

TEST_F(ResolveTest, AzuriteAccountsUseTheirName) {
  Settings s{{"fs.azure.account.key.devstoreaccount1.blob.core.windows.net", "x"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("http://127.0.0.1:10000/devstoreaccount1/lake/t", s));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kSharedKey);
  EXPECT_EQ(c.account_key, "x");
}

TEST_F(ResolveTest, MissingSecretIsNotFoundWithoutAValue) {
  Settings s{{"fs.azure.account.key.acct.dfs.core.windows.net", "secret('adls', 'nope')"}};
  auto c = Resolve("abfss://lake@acct.dfs.core.windows.net/t", s);
  ASSERT_STATUS_CODE(kNotFound, c);
  EXPECT_NE(c.status().message().find("fs.azure.account.key.acct.dfs.core.windows.net"),
            std::string::npos)
      << c.status().ToString();
}

TEST_F(ResolveTest, FixedSasAndWasbContainerSas) {
  Settings fixed{{"fs.azure.account.auth.type.acct.dfs.core.windows.net", "SAS"},
                 {"fs.azure.sas.fixed.token.acct.dfs.core.windows.net", "sv=1&sig=abc"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", fixed));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kSas);
  EXPECT_EQ(c.sas_token, "sv=1&sig=abc");
  Settings wasb{{"fs.azure.sas.lake.acct.blob.core.windows.net", "sv=2&sig=def"}};
  ASSERT_OK_AND_ASSIGN(auto w, Resolve("abfss://lake@acct.dfs.core.windows.net/t", wasb));
  EXPECT_EQ(w.kind, AzureCredentials::Kind::kSas);
  EXPECT_EQ(w.sas_token, "sv=2&sig=def");
  // SAS without a token (a Java token provider class) is refused, naming the key to set.
  Settings provider{{"fs.azure.account.auth.type", "SAS"},
                    {"fs.azure.sas.token.provider.type", "com.example.MyProvider"}};
  auto p = Resolve("abfss://lake@acct.dfs.core.windows.net/t", provider);
  ASSERT_STATUS_CODE(kInvalidArgument, p);
  EXPECT_NE(p.status().message().find("fs.azure.sas.fixed.token"), std::string::npos);
}

TEST_F(ResolveTest, OAuthClientCredentialsAsDatabricksDocumentsThem) {
  const std::string suffix = ".acct.dfs.core.windows.net";
  Settings s{{"fs.azure.account.auth.type" + suffix, "OAuth"},
             {"fs.azure.account.oauth.provider.type" + suffix,
              "org.apache.hadoop.fs.azurebfs.oauth2.ClientCredsTokenProvider"},
             {"fs.azure.account.oauth2.client.id" + suffix, "app-id"},
             {"fs.azure.account.oauth2.client.secret" + suffix, "secret('adls', 'sp')"},
             {"fs.azure.account.oauth2.client.endpoint" + suffix,
              "https://login.microsoftonline.com/tenant-1/oauth2/token"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", s));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kClientSecret);
  EXPECT_EQ(c.client_id, "app-id");
  EXPECT_EQ(c.client_secret, "sp-secret");
  EXPECT_EQ(c.tenant_id, "tenant-1");
  EXPECT_EQ(c.authority_host, "https://login.microsoftonline.com");
  // Without the endpoint: InvalidArgument naming the setting, never the secret.
  s.erase("fs.azure.account.oauth2.client.endpoint" + suffix);
  auto missing = Resolve("abfss://lake@acct.dfs.core.windows.net/t", s);
  ASSERT_STATUS_CODE(kInvalidArgument, missing);
  EXPECT_NE(missing.status().message().find("fs.azure.account.oauth2.client.endpoint"),
            std::string::npos);
  EXPECT_EQ(missing.status().message().find("sp-secret"), std::string::npos);
}

TEST_F(ResolveTest, ManagedIdentity) {
  Settings s{{"fs.azure.account.auth.type", "OAuth"},
             {"fs.azure.account.oauth.provider.type",
              "org.apache.hadoop.fs.azurebfs.oauth2.MsiTokenProvider"},
             {"fs.azure.account.oauth2.client.id", "uami-client"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", s));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kManagedIdentity);
  EXPECT_EQ(c.managed_identity_client_id, "uami-client");
}

TEST_F(ResolveTest, UnsupportedAuthTypeIsRefused) {
  Settings s{{"fs.azure.account.auth.type", "Custom"}};
  ASSERT_STATUS_CODE(kInvalidArgument, Resolve("abfss://lake@acct.dfs.core.windows.net/t", s));
}

TEST_F(ResolveTest, EnvironmentIsTheFallback) {
  setenv("AZURE_STORAGE_KEY", "env-key", 1);
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", {}));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kSharedKey);
  EXPECT_EQ(c.account_key, "env-key");
  // Settings win over the environment.
  Settings s{{"fs.azure.sas.fixed.token", "sv=1"}};
  ASSERT_OK_AND_ASSIGN(auto fromSettings, Resolve("abfss://lake@acct.dfs.core.windows.net/t", s));
  EXPECT_EQ(fromSettings.kind, AzureCredentials::Kind::kSas);
  // AZURE_STORAGE_KEY belongs to AZURE_STORAGE_ACCOUNT when that is set.
  setenv("AZURE_STORAGE_ACCOUNT", "other", 1);
  ASSERT_OK_AND_ASSIGN(auto other, Resolve("abfss://lake@acct.dfs.core.windows.net/t", {}));
  EXPECT_EQ(other.kind, AzureCredentials::Kind::kAnonymous);
  unsetenv("AZURE_STORAGE_KEY");
  unsetenv("AZURE_STORAGE_ACCOUNT");
  setenv("AZURE_CLIENT_ID", "id", 1);
  setenv("AZURE_CLIENT_SECRET", "secret", 1);
  setenv("AZURE_TENANT_ID", "tenant", 1);
  ASSERT_OK_AND_ASSIGN(auto sp, Resolve("abfss://lake@acct.dfs.core.windows.net/t", {}));
  EXPECT_EQ(sp.kind, AzureCredentials::Kind::kClientSecret);
  EXPECT_EQ(sp.tenant_id, "tenant");
}

TEST(FileSystemForTest, LocalPathsAndUnsupportedUrls) {
  ASSERT_OK_AND_ASSIGN(fs::FileSystem * local, FileSystemFor("/tmp/lake/t"));
  EXPECT_EQ(local, fs::LocalFileSystem::Default());
  ASSERT_OK_AND_ASSIGN(fs::FileSystem * relative, FileSystemFor("lake/t"));
  EXPECT_EQ(relative, fs::LocalFileSystem::Default());
  ASSERT_STATUS_CODE(kInvalidArgument, FileSystemFor("s3://bucket/t"));
  EXPECT_TRUE(IsRemotePath("abfss://lake@acct.dfs.core.windows.net/t"));
  EXPECT_FALSE(IsRemotePath("/tmp/lake"));
}

TEST(FileSystemForTest, JoinedLakehousePathsStayInTheContainer) {
  // The lakehouse layout joins names onto the root URL; the result names the same container.
  const std::string root = "abfss://c@a.dfs.core.windows.net/lake";
  std::string table = fs::JoinPath(root, "sales/bronze/orders_raw");
  ASSERT_OK_AND_ASSIGN(auto location, azure::ParseAzureUrl(table));
  EXPECT_EQ(location.account, "a");
  EXPECT_EQ(location.container, "c");
  EXPECT_EQ(location.path, "lake/sales/bronze/orders_raw");
  ASSERT_OK_AND_ASSIGN(auto azurite, azure::ParseAzureUrl(fs::JoinPath(
                                         "http://127.0.0.1:10000/devstoreaccount1/lake/run", "_checkpoints/x")));
  EXPECT_EQ(azurite.container, "lake");
  EXPECT_EQ(azurite.path, "run/_checkpoints/x");
}

}  // namespace
}  // namespace weir::cli
