#include "base/config.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>

#include "base/error.hpp"

namespace si::config {
namespace {

Lookup from(std::map<std::string, std::string> values) {
    return [values](std::string_view name) -> std::optional<std::string> {
        auto it = values.find(std::string(name));
        if (it == values.end()) return std::nullopt;
        return it->second;
    };
}

TEST(Config, DefaultsWhenNothingIsSet) {
    Settings s = load(from({}));
    EXPECT_EQ(s.progress, ProgressMode::none);
    EXPECT_EQ(s.shm_eager_limit(), 32768u);
    EXPECT_EQ(s.verbs_eager_limit(), 16384u);
    EXPECT_EQ(s.node_size, 0);
    EXPECT_TRUE(s.stats.empty());
}

TEST(Config, ParsesEveryKind) {
    Settings s = load(from({{"SI_PROGRESS", "thread"}, {"SI_EAGER_LIMIT", "64k"},
                            {"SI_NODE_SIZE", "2"}, {"SI_STATS", "1"}}));
    EXPECT_EQ(s.progress, ProgressMode::thread);
    EXPECT_EQ(s.shm_eager_limit(), 65536u);
    EXPECT_EQ(s.verbs_eager_limit(), 65536u);
    EXPECT_EQ(s.node_size, 2);
    EXPECT_EQ(s.stats, "1");
}

TEST(Config, EagerLimitAutoIsPerTransportAndZeroIsAValue) {
    Settings zero = load(from({{"SI_EAGER_LIMIT", "0"}}));
    EXPECT_EQ(zero.shm_eager_limit(), 0u);
    EXPECT_EQ(zero.verbs_eager_limit(), 0u);
    Settings automatic = load(from({{"SI_EAGER_LIMIT", "auto"}}));
    EXPECT_EQ(automatic.shm_eager_limit(), 32768u);
    EXPECT_EQ(automatic.verbs_eager_limit(), 16384u);
}

TEST(Config, StatsZeroOrOffMeansNone) {
    EXPECT_TRUE(load(from({{"SI_STATS", "0"}})).stats.empty());
    EXPECT_TRUE(load(from({{"SI_STATS", "off"}})).stats.empty());
    EXPECT_EQ(load(from({{"SI_STATS", "/tmp/counters"}})).stats, "/tmp/counters");
}

TEST(Config, BadValueNamesVariableAndValidChoices) {
    try {
        load(from({{"SI_PROGRESS", "fast"}}));
        FAIL() << "expected an error";
    } catch (const Error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("SI_PROGRESS=fast"), std::string::npos) << what;
        EXPECT_NE(what.find("none, thread"), std::string::npos) << what;
    }
    EXPECT_THROW(load(from({{"SI_EAGER_LIMIT", "12q"}})), Error);
    EXPECT_THROW(load(from({{"SI_NODE_SIZE", "0"}})), Error);
}

TEST(Config, SplitReadThresholdTakesOffOrBytesFrom64k) {
    EXPECT_EQ(load(from({})).shm_split_read_bytes, std::size_t{128} << 10);
    EXPECT_EQ(load(from({{"SI_SHM_SPLIT_READ_BYTES", "off"}})).shm_split_read_bytes, 0u);
    EXPECT_EQ(load(from({{"SI_SHM_SPLIT_READ_BYTES", "1m"}})).shm_split_read_bytes,
              std::size_t{1} << 20);
    EXPECT_THROW(load(from({{"SI_SHM_SPLIT_READ_BYTES", "4k"}})), Error);
    EXPECT_THROW(load(from({{"SI_SHM_SPLIT_READ_BYTES", "0"}})), Error);
}

TEST(Config, StagingAreaIsSharedAmongTheHostsRanks) {
    const Settings automatic = load(from({}));
    EXPECT_EQ(automatic.shm_staging_bytes_for(2), std::size_t{4} << 20);
    EXPECT_EQ(automatic.shm_staging_bytes_for(4), std::size_t{4} << 20);
    EXPECT_EQ(automatic.shm_staging_bytes_for(8), std::size_t{2} << 20);
    EXPECT_EQ(automatic.shm_staging_bytes_for(16), std::size_t{1} << 20);
    EXPECT_EQ(automatic.shm_staging_bytes_for(1024), std::size_t{256} << 10);
    EXPECT_EQ(load(from({{"SI_SHM_STAGING_BYTES", "off"}})).shm_staging_bytes_for(2), 0u);
    EXPECT_EQ(load(from({{"SI_SHM_STAGING_BYTES", "64k"}})).shm_staging_bytes_for(64),
              std::size_t{64} << 10);
    EXPECT_THROW(load(from({{"SI_SHM_STAGING_BYTES", "4k"}})), Error);
    EXPECT_THROW(load(from({{"SI_SHM_STAGING_BYTES", "2g"}})), Error);
}

TEST(Config, UnknownVariableGetsNearMatch) {
    auto warnings = unknown_variable_warnings({"SI_PROGRES", "SI_PROGRESS", "PATH", "SI_ZZZZZZZZZZ"});
    ASSERT_EQ(warnings.size(), 2u);
    EXPECT_NE(warnings[0].find("did you mean SI_PROGRESS"), std::string::npos) << warnings[0];
    EXPECT_EQ(warnings[1].find("did you mean"), std::string::npos) << warnings[1];
}

TEST(Config, VariablesOfTheToolsAreNotWarnedAbout) {
    EXPECT_TRUE(
        unknown_variable_warnings({"SI_CC", "SI_CXX", "SI_BENCH_COMMIT", "SI_TEST_NO_SKIP"}).empty());
}

}  // namespace
}  // namespace si::config

namespace si::config {
namespace {

// The README's table of settings must name every knob (and only knobs).
TEST(Config, ReadmeDocumentsEveryKnob) {
    std::ifstream readme(SI_SOURCE_DIR "/README.md");
    ASSERT_TRUE(readme) << "cannot read README.md";
    const std::string text((std::istreambuf_iterator<char>(readme)), {});
    for (const Knob& knob : knobs())
        EXPECT_NE(text.find("| `" + std::string(knob.name) + "` |"), std::string::npos)
            << knob.name << " is missing from the README's table of settings";
}

}  // namespace
}  // namespace si::config
