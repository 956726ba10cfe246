// Studies of the one-sided benchmark (rma.hpp): its metric names, the figures per
// epoch kind (phase 2's epoch relative to the work, phase 1's latency) and the
// summary's tables.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "derive.hpp"
#include "results.hpp"
#include "rma.hpp"

namespace si::harness {
namespace {

Row rma_row(const std::string& config, std::uint64_t size, const std::string& metric,
            double value) {
    Row r;
    r.suite = "rma";
    r.benchmark = "rma_overlap";
    r.study = "rma";
    r.config = config;
    r.runtime = config.substr(0, config.find('-'));
    r.mode = config.starts_with("simpi-") ? config.substr(6) : "default";
    r.pairs = 1;
    r.ranks = 2;
    r.msg_size = size;
    r.metric = metric;
    r.unit = "us";
    r.value = value;
    r.run = "rma." + config + ".p1";
    return r;
}

TEST(SibenchRma, ParsesTheBenchmarksMetricNames) {
    const auto late = parse_rma_metric("overlapped_fence_put_median");
    ASSERT_TRUE(late);
    EXPECT_EQ(late->measurement, "overlapped");
    EXPECT_EQ(late->epoch, "fence_put");
    EXPECT_EQ(late->statistic, "median");
    EXPECT_EQ(parse_rma_metric("work_lock_get_max")->epoch, "lock_get");
    for (const char* other : {"overlap_median", "epoch_median", "epoch_pscw_put_median",
                              "latency_ibcast_median", "footprint_mean"})
        EXPECT_FALSE(parse_rma_metric(other)) << other;
}

TEST(SibenchRma, FiguresAndTablesDivideByEachConfigurationsWork) {
    std::vector<Row> rows;
    for (const auto& [config, work, late] :
         {std::tuple{"simpi-none", 100.0, 190.0}, std::tuple{"simpi-smart", 100.0, 105.0}}) {
        rows.push_back(rma_row(config, 65536, "epoch_gats_put_median", 20));
        rows.push_back(rma_row(config, 1048576, "epoch_gats_put_median", work));
        rows.push_back(rma_row(config, 1048576, "work_gats_put_median", work));
        for (const char* statistic : {"min", "median", "max"})
            rows.push_back(rma_row(config, 1048576,
                                   std::string("overlapped_gats_put_") + statistic, late));
    }
    const ResultIndex index(rows);
    const auto figures = rma_figures(index);
    ASSERT_EQ(figures.size(), 2u);
    EXPECT_EQ(figures[0].name, "rma-gats-put-overlap");
    EXPECT_EQ(figures[0].reference_y, 1.0);
    ASSERT_EQ(figures[0].series.size(), 2u);
    for (const auto& series : figures[0].series) {
        ASSERT_EQ(series.points.size(), 1u);
        EXPECT_DOUBLE_EQ(series.points[0].y, series.label == "simpi-none" ? 1.9 : 1.05);
    }
    EXPECT_EQ(figures[1].name, "rma-gats-put-latency");
    const std::string tables = format_rma_tables(index, {1048576});
    EXPECT_NE(tables.find("gats_put 1 MiB"), std::string::npos) << tables;
    EXPECT_NE(tables.find("1.90"), std::string::npos) << tables;
    EXPECT_NE(tables.find("1.05"), std::string::npos) << tables;
    EXPECT_EQ(format_rma_tables(ResultIndex({}), {}), "");
}

}  // namespace
}  // namespace si::harness
