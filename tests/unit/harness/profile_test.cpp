// Profiles (TOML) and the run matrix they expand to.
#include "profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "config.hpp"
#include "units.hpp"

namespace si::harness {
namespace {

const char* kProfile = R"(
name = "t"
[defaults]
configs = ["simpi-none", "simpi-smart", "mpich-async"]
helpers = [1, 2]
pairs = [2]
sizes = ["16k", "1m"]
iterations = 50
warmup = 5
timeout = 30
args = ["--batch", "1"]
env = { SI_EAGER_LIMIT = "32k" }

[[study]]
benchmark = "overlap"

[[study]]
name = "scalability"
benchmark = "overlap"
sizes = [32768, 262144]
pairs = [4, 1]
configs = ["simpi-smart-h2", "simpi-thread"]
scaling = true
args = ["--sender-delay-us", "3"]
)";

TEST(SibenchUnits, SizesReadAndWriteBack) {
    EXPECT_EQ(parse_size("16k"), 16384u);
    EXPECT_EQ(parse_size("1M"), 1048576u);
    EXPECT_EQ(parse_size("100"), 100u);
    EXPECT_EQ(parse_size(" 2g "), std::uint64_t{2} << 30);
    EXPECT_THROW(parse_size("16q"), std::invalid_argument);
    EXPECT_THROW(parse_size("k"), std::invalid_argument);
    EXPECT_EQ(format_size(16384), "16k");
    EXPECT_EQ(format_size(1 << 20), "1m");
    EXPECT_EQ(format_size(1000), "1000");
    EXPECT_EQ(size_label(262144), "256 KiB");
    EXPECT_EQ(shell_quote("a b"), "'a b'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_quote("--sizes=16k,1m"), "--sizes=16k,1m");
}

TEST(SibenchConfig, NamesRoundTrip) {
    for (const char* name :
         {"simpi-none", "simpi-thread", "simpi-smart-h2", "mpich", "mpich-async", "openmpi"})
        EXPECT_EQ(parse_config(name).name(), name);
    EXPECT_EQ(parse_config("simpi-smart").helpers, 0);  // a template
    EXPECT_EQ(config_name_of("simpi", "smart", 1), "simpi-smart-h1");
    EXPECT_EQ(config_name_of("mpich", "default", 0), "mpich");
    EXPECT_EQ(config_name_of("mpich", "async", 0), "mpich-async");
    try {
        parse_config("simpi-fast");
        FAIL() << "no exception";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("simpi-none"), std::string::npos) << error.what();
    }
    EXPECT_THROW(parse_config("simpi-smart-h0"), std::invalid_argument);
}

TEST(SibenchConfig, MpichAbiConfigurations) {
    const Config abi = parse_config("simpi-smart-h2@mpich-abi");
    EXPECT_TRUE(abi.mpich_abi);
    EXPECT_EQ(abi.runtime, Runtime::simpi);
    EXPECT_EQ(abi.built_against(), Runtime::mpich);
    EXPECT_EQ(abi.name(), "simpi-smart-h2@mpich-abi");
    EXPECT_EQ(abi.csv_name(), "simpi-smart-h2");
    EXPECT_EQ(csv_name_of("simpi-none@mpich-abi"), "simpi-none");
    EXPECT_EQ(csv_name_of("mpich"), "mpich");
    // A template keeps the ABI through its helper counts.
    const std::vector<Config> expanded =
        expand_helpers(parse_config("simpi-smart@mpich-abi"), {1, 2});
    ASSERT_EQ(expanded.size(), 2u);
    EXPECT_EQ(expanded[1].name(), "simpi-smart-h2@mpich-abi");
    // Only this runtime runs another library's binaries.
    EXPECT_THROW(parse_config("mpich@mpich-abi"), std::invalid_argument);
    EXPECT_THROW(parse_config("openmpi@mpich-abi"), std::invalid_argument);
}

TEST(SibenchConfig, LegendOrder) {
    std::vector<std::string> names = {"mpich-async",    "simpi-smart-h2", "mpich",
                                      "simpi-none",     "simpi-smart-h1", "simpi-thread",
                                      "simpi-interrupt"};
    std::sort(names.begin(), names.end(), config_name_less);
    EXPECT_EQ(names, (std::vector<std::string>{"simpi-none", "simpi-thread", "simpi-interrupt",
                                               "simpi-smart-h1", "simpi-smart-h2", "mpich",
                                               "mpich-async"}));
    // A mode's run through the MPICH ABI sits right after its own.
    std::vector<std::string> abi = {
        "mpich",          "simpi-smart-h1@mpich-abi", "simpi-none@mpich-abi",
        "simpi-smart-h1", "simpi-smart-h2@mpich-abi", "simpi-none"};
    std::sort(abi.begin(), abi.end(), config_name_less);
    EXPECT_EQ(abi, (std::vector<std::string>{"simpi-none", "simpi-none@mpich-abi", "simpi-smart-h1",
                                             "simpi-smart-h1@mpich-abi", "simpi-smart-h2@mpich-abi",
                                             "mpich"}));
}

TEST(SibenchProfile, DefaultsAndStudyValues) {
    const Profile p = parse_profile_text(kProfile, "t.toml");
    EXPECT_EQ(p.name, "t");
    ASSERT_EQ(p.studies.size(), 2u);
    const Study& overlap = p.studies[0];
    EXPECT_EQ(overlap.name, "overlap");  // defaults to the benchmark
    EXPECT_EQ(overlap.pairs, (std::vector<int>{2}));
    EXPECT_EQ(overlap.sizes, (std::vector<std::uint64_t>{16384, 1 << 20}));
    EXPECT_EQ(overlap.iterations, 50);
    EXPECT_EQ(overlap.timeout_s, 30);
    EXPECT_EQ(overlap.env, (EnvList{{"SI_EAGER_LIMIT", "32k"}}));
    const Study& scal = p.studies[1];
    EXPECT_TRUE(scal.scaling);
    EXPECT_EQ(scal.pairs, (std::vector<int>{1, 4}));  // sorted
    EXPECT_EQ(scal.sizes, (std::vector<std::uint64_t>{32768, 262144}));
    // args add up: the defaults', then the study's.
    EXPECT_EQ(scal.args, (std::vector<std::string>{"--batch", "1", "--sender-delay-us", "3"}));
    EXPECT_EQ(benchmark_args(scal),
              (std::vector<std::string>{"--sizes", "32k,256k", "--iterations", "50", "--warmup",
                                        "5", "--batch", "1", "--sender-delay-us", "3"}));
}

TEST(SibenchProfile, MatrixExpansion) {
    const Profile p = parse_profile_text(kProfile, "t.toml");
    const auto runs = expand_matrix(p);
    std::vector<std::string> ids;
    for (const auto& run : runs) ids.push_back(run.id);
    // overlap: pairs 2 x (none, smart h1, smart h2, mpich-async); scalability: pairs 1
    // (smart-h2 left out: 2 helpers for 1 rank per node) and 4.
    EXPECT_EQ(ids,
              (std::vector<std::string>{
                  "overlap.simpi-none.p2", "overlap.simpi-smart-h1.p2", "overlap.simpi-smart-h2.p2",
                  "overlap.mpich-async.p2", "scalability.simpi-thread.p1",
                  "scalability.simpi-smart-h2.p4", "scalability.simpi-thread.p4"}));
    EXPECT_EQ(runs[2].ranks(), 4);
    EXPECT_EQ(runs[2].config.helpers, 2);
    EXPECT_TRUE(runs.back().scaling);
}

TEST(SibenchProfile, MatrixFilters) {
    const Profile p = parse_profile_text(kProfile, "t.toml");
    MatrixFilter only;
    only.studies = {"overlap"};
    only.configs = {"simpi-smart"};  // a prefix: every helper count
    only.helpers = std::vector<int>{2};
    const auto runs = expand_matrix(p, only);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].id, "overlap.simpi-smart-h2.p2");
    // No other prefix: the study has mpich-async, which mpich does not select.
    MatrixFilter mpich;
    mpich.studies = {"overlap"};
    mpich.configs = {"mpich"};
    EXPECT_TRUE(expand_matrix(p, mpich).empty());
    mpich.configs = {"mpich-async"};
    ASSERT_EQ(expand_matrix(p, mpich).size(), 1u);
    EXPECT_EQ(expand_matrix(p, mpich)[0].config.name(), "mpich-async");
    MatrixFilter unknown;
    unknown.studies = {"nope"};
    EXPECT_THROW(expand_matrix(p, unknown), ProfileError);
}

void expect_error(const std::string& text, const std::string& fragment) {
    try {
        parse_profile_text(text, "bad.toml");
        FAIL() << "no error for: " << text;
    } catch (const ProfileError& error) {
        EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)
            << "'" << error.what() << "' lacks '" << fragment << "'";
        EXPECT_NE(std::string(error.what()).find("bad.toml"), std::string::npos);
    }
}

TEST(SibenchProfile, ErrorsNameTheKey) {
    expect_error("[[study]]\nbenchmark = \"overlap\"\niteration = 5\n", "unknown key (valid:");
    expect_error("[[study]]\nbenchmark = \"overlap\"\nconfigs = [\"simpi-fast\"]\n", "simpi-fast");
    expect_error("[[study]]\nbenchmark = \"overlap\"\nsizes = [\"16q\"]\n", "16q");
    expect_error("[[study]]\nbenchmark = \"overlap\"\nsizes = [\"16k\"]\nmax_size = \"1m\"\n",
                 "not both");
    expect_error("[[study]]\nbenchmark = \"overlap\"\npairs = [0]\n", "'pairs'");
    expect_error("[[study]]\nbenchmark = \"overlap\"\niterations = \"many\"\n",
                 "expected an integer");
    expect_error("[[study]]\nname = \"x\"\n", "benchmark");
    expect_error("[[study]]\nbenchmark = \"a\"\n[[study]]\nbenchmark = \"a\"\n", "appears twice");
    expect_error("name = \"x\"\n", "no [[study]]");
    expect_error("[[study]\n", "bad.toml");  // TOML syntax
    expect_error("[plots]\nscalability_sizes = 5\n[[study]]\nbenchmark = \"a\"\n",
                 "scalability_sizes");
}

TEST(SibenchProfile, ShippedProfilesParse) {
    for (const char* name : {"quick", "full", "smoke", "nas-sp", "nas-sp-cluster"}) {
        SCOPED_TRACE(name);
        const Profile p = parse_profile_file(find_profile(name));
        EXPECT_EQ(p.name, name);
        EXPECT_FALSE(expand_matrix(p).empty());
    }
    // quick: one pair (SP, the oversubscribed scalability study and the one-sided
    // one-to-many study: 4 ranks; the one-sided lock test and the three-rank inefficiency
    // patterns: 3), one helper (it has to fit a two-core laptop); the
    // runtime's costs in one process.
    int gbench_runs = 0;
    for (const auto& run : expand_matrix(parse_profile_file(find_profile("quick")))) {
        const bool four = run.benchmark == "sp" || run.study == "scalability" ||
                          run.study == "collectives" || run.study == "rma-one-to-many";
        gbench_runs += run.kind == "gbench";
        const bool three = run.study == "rma-lock" || run.study == "rma-patterns-3";
        const int ranks = three ? 3 : four ? 4 : 2;
        EXPECT_EQ(run.ranks(), run.kind == "gbench" ? 1 : ranks) << run.id;
        if (run.config.mode == "smart") {
            EXPECT_EQ(run.config.helpers, 1) << run.id;
        }
    }
    EXPECT_EQ(gbench_runs, 1) << "the runtime-costs study";
    // full: the thesis' counts and the scalability study.
    const Profile full = parse_profile_file(find_profile("full"));
    const auto scal = std::find_if(full.studies.begin(), full.studies.end(),
                                   [](const Study& s) { return s.name == "scalability"; });
    ASSERT_NE(scal, full.studies.end());
    EXPECT_EQ(scal->pairs, (std::vector<int>{1, 4, 8, 12, 16}));
    EXPECT_EQ(full.studies[0].iterations, 10000);
    EXPECT_EQ(full.studies[0].warmup, 200);
    // nas-sp-cluster: the thesis' class E job sizes, 2 helpers per node.
    const Profile cluster = parse_profile_file(find_profile("nas-sp-cluster"));
    ASSERT_EQ(cluster.studies.size(), 3u);
    EXPECT_EQ(cluster.studies[2].ranks, (std::vector<int>{324, 400, 484}));
    EXPECT_EQ(cluster.studies[2].helpers, (std::vector<int>{2}));
    try {
        find_profile("no-such-profile");
        FAIL();
    } catch (const ProfileError& error) {
        EXPECT_NE(std::string(error.what()).find("quick"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace si::harness
