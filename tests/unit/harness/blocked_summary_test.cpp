// The summary tables of a study of microbench/p2p/blocked: per blocking call and
// configuration, the blocked thread's CPU share and its wake delay.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "derive.hpp"
#include "results.hpp"
#include "summary.hpp"

namespace si::harness {
namespace {

Row blocked_row(const std::string& config, const std::string& metric, double value) {
    Row r;
    r.suite = "p2p";
    r.benchmark = "blocked";
    r.study = "waits";
    r.config = config;
    r.runtime = config.substr(0, config.find('-'));
    r.mode = config.starts_with("simpi-") ? config.substr(6) : "default";
    r.pairs = 1;
    r.ranks = 2;
    r.msg_size = 8;
    r.metric = metric;
    r.unit = metric.starts_with("cpu") ? "%" : "us";
    r.value = value;
    r.run = "waits." + config + ".p1";
    return r;
}

TEST(SibenchBlockedSummary, OneRowPerCallOneColumnPerConfiguration) {
    const std::vector<Row> rows = {
        blocked_row("simpi-none", "cpu_share_recv_median", 99.5),
        blocked_row("simpi-smart-h1", "cpu_share_recv_median", 0.04),
        blocked_row("simpi-none", "wake_delay_probe_median", 12.5),
        blocked_row("simpi-smart-h1", "wake_delay_probe_median", 150),
    };
    const std::string text = format_blocked_tables(ResultIndex(rows));
    EXPECT_NE(text.find("waits: CPU of the blocked thread"), std::string::npos) << text;
    EXPECT_NE(text.find("waits: delay after the message left"), std::string::npos) << text;
    EXPECT_NE(text.find("simpi-none  simpi-smart-h1"), std::string::npos) << text;
    EXPECT_NE(text.find("recv        99.5            0.04"), std::string::npos) << text;
    EXPECT_NE(text.find("probe        12.5             150"), std::string::npos) << text;
    EXPECT_NE(text.find("bcast           -               -"), std::string::npos) << text;
}

TEST(SibenchBlockedSummary, NothingWithoutSuchAStudy) {
    EXPECT_TRUE(format_blocked_tables(ResultIndex({blocked_row("mpich", "latency_median", 1)}))
                    .empty());
}

}  // namespace
}  // namespace si::harness
