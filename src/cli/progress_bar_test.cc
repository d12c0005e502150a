#include "cli/progress_bar.h"

#include <gtest/gtest.h>

namespace weir::cli {
namespace {

TEST(ProgressBarTest, ShowsCountsRateAndEta) {
  std::string text = ProgressBar::Render("sales.bronze.orders_raw", 500000, 2000000, 250000.0, 100);
  EXPECT_NE(text.find("sales.bronze.orders_raw ["), std::string::npos) << text;
  EXPECT_NE(text.find("500,000/2,000,000 events"), std::string::npos) << text;
  EXPECT_NE(text.find("250k ev/s"), std::string::npos) << text;
  EXPECT_NE(text.find("ETA 6s"), std::string::npos) << text;
  EXPECT_LE(text.size(), 100u) << text;
  // A quarter of the bar is filled.
  size_t open = text.find('['), close = text.find(']');
  std::string bar = text.substr(open + 1, close - open - 1);
  size_t filled = bar.find('>');
  EXPECT_NEAR(static_cast<double>(filled) / static_cast<double>(bar.size()), 0.25, 0.03) << bar;
}

TEST(ProgressBarTest, CompleteBarHasNoEtaAndNarrowTerminalsDropTheName) {
  std::string done = ProgressBar::Render("t", 10, 10, 5.0, 60);
  EXPECT_EQ(done.find("ETA"), std::string::npos) << done;
  EXPECT_EQ(done.find('>'), std::string::npos) << done;
  std::string narrow = ProgressBar::Render(std::string(50, 'n'), 1, 4, 0.0, 40);
  EXPECT_EQ(narrow.find("nnnn"), std::string::npos) << narrow;
  EXPECT_EQ(narrow.find("ev/s"), std::string::npos) << narrow;  // no rate yet
  // Counts past the total (a re-read) are clamped.
  EXPECT_NE(ProgressBar::Render("t", 12, 10, 1.0, 80).find("10/10 events"), std::string::npos);
}

}  // namespace
}  // namespace weir::cli
