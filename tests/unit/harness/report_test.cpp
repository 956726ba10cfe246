// sibench report: the published values and the sections that use them hold
// together, and a report of a small run has every section, each with a
// published and a measured value or the reason it has none.
#include "report.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "results.hpp"
#include "test_files.hpp"

namespace si::harness {
namespace {

Row overlap_row(const std::string& config, std::uint64_t size, const std::string& metric,
                double value) {
    Row row;
    row.suite = "p2p";
    row.benchmark = "overlap";
    row.runtime = config == "mpich" ? "mpich" : "simpi";
    row.mode = config == "simpi-smart-h1" ? "smart" : "none";
    row.helpers = config == "simpi-smart-h1" ? 1 : 0;
    row.ranks_per_node = 2;
    row.msg_size = size;
    row.metric = metric;
    row.value = value;
    row.unit = "us";
    row.config = config;
    row.study = "overlap";
    row.pairs = 1;
    row.ranks = 2;
    row.run = "overlap." + config;
    return row;
}

TEST(SibenchReport, EverySectionHasPublishedValuesAndEveryComparisonOneOfThem) {
    const auto published = read_published(report_data("published.csv"));
    const auto sections = read_sections(report_data("sections.toml"));
    std::set<std::string> ids;
    for (const auto& s : sections) {
        EXPECT_TRUE(ids.insert(s.id).second) << "section " << s.id << " twice";
        const bool any = std::any_of(published.begin(), published.end(),
                                     [&](const PublishedValue& p) { return p.result == s.id; });
        EXPECT_TRUE(any) << s.id << " has no row in published.csv";
        for (const auto& c : s.compare) {
            const bool found = std::any_of(published.begin(), published.end(), [&](const auto& p) {
                return p.result == s.id && p.curve == c.curve && p.x == c.x && p.value;
            });
            EXPECT_TRUE(found) << s.id << ": no published number for '" << c.curve << "' at '"
                               << c.x << "'";
        }
    }
    for (const auto& p : published) {
        EXPECT_TRUE(ids.count(p.result)) << p.result << " (published.csv) has no section";
        EXPECT_GT(p.line, 0) << p.result;
    }
}

TEST(SibenchReport, ASmallRunGetsEverySectionWithAMeasurementOrAReason) {
    test::ScratchDir dir;
    // The overlap study only, in two configurations, as its derived metrics need.
    std::vector<Row> rows;
    for (const std::string config : {"simpi-none", "simpi-smart-h1"})
        for (std::uint64_t size : {65536u, 1048576u}) {
            const double latency = size == 65536 ? 10 : 100;
            rows.push_back(overlap_row(config, size, "latency_median", latency));
        }
    write_rows(dir.file("results.csv"), rows);
    const auto sections = read_sections(report_data("sections.toml"));
    const ReportCounts counts =
        write_report(dir.path(), read_published(report_data("published.csv")), sections,
                     dir.file("out"));
    EXPECT_EQ(counts.sections, static_cast<int>(sections.size()));
    const std::string md = test::read_text(dir.file("out/report.md"));
    for (const auto& s : sections) {
        const auto at = md.find(fmt::format("\n## {} ({})\n", s.title, s.figure));
        ASSERT_NE(at, std::string::npos) << s.id;
        const auto end = md.find("\n## ", at + 1);
        const std::string text = md.substr(at, end == std::string::npos ? end : end - at);
        EXPECT_NE(text.find("**Published.**"), std::string::npos) << s.id;
        const bool measured = text.find("**Measured here** (") != std::string::npos;
        const bool reason = text.find("**Measured here:** nothing") != std::string::npos;
        EXPECT_TRUE(measured != reason) << s.id << ": a measurement or a reason, once";
    }
    EXPECT_NE(md.find("## Which design wins where"), std::string::npos);
}

TEST(SibenchReport, AlsoTakesAMetricOfAnotherStudyWhenNamedWithAt) {
    test::ScratchDir dir;
    std::vector<Row> rows = {overlap_row("simpi-none", 1048576, "latency_median", 100)};
    Row other = overlap_row("simpi-smart-h1", 1048576, "wait_median", 42);
    other.study = "second";
    other.run = "second.simpi-smart-h1";
    rows.push_back(other);
    write_rows(dir.file("results.csv"), rows);
    ReportSection s;
    s.id = "x";
    s.title = "Two studies";
    s.figure = "nowhere";
    s.study = "overlap";
    s.metric = "latency_median";
    s.unit = "us";
    s.sizes = {1048576};
    s.also = {"wait_median@second", "wait_median@absent"};
    write_report(dir.path(), {}, {s}, dir.file("out"));
    const std::string md = test::read_text(dir.file("out/report.md"));
    const auto at = md.find("Also measured: `wait_median` of study `second`.");
    ASSERT_NE(at, std::string::npos) << md;
    EXPECT_NE(md.find("| simpi-smart-h1 | 42.0 |", at), std::string::npos) << md;
    EXPECT_NE(md.find("of study `absent`.\n\n(not in this run)"), std::string::npos) << md;
}

}  // namespace
}  // namespace si::harness
