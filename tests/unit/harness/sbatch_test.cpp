// Slurm job scripts: written without Slurm, checked by content.
#include "sbatch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "test_files.hpp"

namespace si::harness {
namespace {

const char* kProfile = R"(
name = "cluster"
[defaults]
configs = ["simpi-none", "simpi-smart", "mpich"]
helpers = [1, 2]
iterations = 10000
warmup = 200
timeout = 900

[[study]]
benchmark = "overlap"
min_size = "16k"
max_size = "1m"

[[study]]
name = "scalability"
benchmark = "overlap"
sizes = ["32k", "256k"]
pairs = [1, 4, 8]
scaling = true
)";

SbatchOptions options() {
    SbatchOptions o;
    o.nodes = {2, 4};
    o.ranks_per_node = {1, 8};
    o.partition = "ib";
    o.time = "02:00:00";
    o.build_dir = "/home/u/si/build";
    o.out_dir = "/scratch/u/sweep";
    o.sibench = "/home/u/si/build/bin/sibench";
    o.commit = "abc123";
    return o;
}

const std::string& file(const SbatchPlan& plan, const std::string& name) {
    const auto found = std::find_if(plan.files.begin(), plan.files.end(),
                                    [&](const auto& f) { return f.first == name; });
    if (found == plan.files.end()) throw std::runtime_error("no file " + name);
    return found->second;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::size_t count_of(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

TEST(SibenchSbatch, OneScriptPerNodeCount) {
    const Profile profile = parse_profile_text(kProfile, "cluster.toml");
    const SbatchPlan plan = plan_sbatch(profile, options());
    const std::string& n2 = file(plan, "sibench-n2.sbatch");
    const std::string& n4 = file(plan, "sibench-n4.sbatch");
    EXPECT_TRUE(n2.starts_with("#!/bin/bash\n"));
    EXPECT_TRUE(contains(n2, "#SBATCH --nodes=2\n"));
    EXPECT_TRUE(contains(n4, "#SBATCH --nodes=4\n"));
    EXPECT_TRUE(contains(n2, "#SBATCH --ntasks-per-node=8\n"));  // the largest count
    EXPECT_TRUE(contains(n2, "#SBATCH --partition=ib\n"));
    EXPECT_TRUE(contains(n2, "#SBATCH --time=02:00:00\n"));
    EXPECT_TRUE(contains(n2, "#SBATCH --exclusive\n"));
    EXPECT_TRUE(contains(n2, "#SBATCH --output=/scratch/u/sweep/logs/slurm-n2-%j.out\n"));
    EXPECT_FALSE(contains(n2, "--account"));
    EXPECT_TRUE(contains(n2, "export SI_TRANSPORT=auto\n"));
    EXPECT_TRUE(contains(n2, "cd /scratch/u/sweep || exit 1\n"));
    EXPECT_TRUE(contains(n2, "abc123"));
    EXPECT_FALSE(contains(n2, "SI_NODE_SIZE"));  // real nodes
    // The first node's preflight, kept with the results; across nodes verbs must work.
    EXPECT_TRUE(contains(n2, "doctor --build /home/u/si/build --need verbs --no-jobs --out "
                             "doctor-n2.txt"))
        << n2;
    // A simpi-smart run: its settings, srun with PMI-1 over pmi2, the binary, the CSV.
    EXPECT_TRUE(contains(n2,
                         "run overlap.simpi-smart-h1.n2r1 900 env SI_PROGRESS=smart SI_HELPERS=1 "
                         "srun --mpi=pmi2 --nodes=2 --ntasks-per-node=1 --ntasks=2"))
        << n2;
    EXPECT_TRUE(
        contains(n2,
                 "/home/u/si/build/bin/overlap --min-size 16k --max-size 1m --iterations 10000 "
                 "--warmup 200 --csv raw/overlap.simpi-smart-h1.n2r1.csv"))
        << n2;
    EXPECT_TRUE(
        contains(n2,
                 "srun --mpi=pmi2 --nodes=2 --ntasks-per-node=1 --ntasks=2 --distribution=block "
                 "--kill-on-bad-exit=1 /home/u/si/build/bin/overlap.mpich"))
        << n2;
    // The non-scaling study runs at the first ranks-per-node only; scalability at both.
    EXPECT_FALSE(contains(n2, "run overlap.simpi-none.n2r8"));
    EXPECT_TRUE(contains(n2, "run scalability.simpi-none.n2r8"));
    EXPECT_TRUE(contains(n4, "run scalability.simpi-smart-h2.n4r8"));
    // Two helpers need two ranks per node.
    EXPECT_FALSE(contains(n2, "simpi-smart-h2.n2r1"));
    // The manifest lists exactly the runs of the scripts.
    const std::size_t runs = count_of(n2, "\nrun ") + count_of(n4, "\nrun ");
    EXPECT_EQ(plan.manifest.size(), runs);
    // overlap (rpn 1): none, h1, mpich; scalability: rpn 1 like overlap, rpn 8 adds h2.
    EXPECT_EQ(count_of(n2, "\nrun "), 3u + 3u + 4u);
    const auto& first = plan.manifest.front();
    EXPECT_EQ(first.status, "planned");
    EXPECT_EQ(first.nodes, 2);
    EXPECT_EQ(first.ranks, 2);
    EXPECT_EQ(first.csv, "raw/" + first.id + ".csv");

    const std::string& readme = file(plan, "README.md");
    EXPECT_TRUE(contains(readme, "/home/u/si/build/bin/sibench plot /scratch/u/sweep"));
    EXPECT_TRUE(contains(readme, "srun --mpi=pmi2"));
    const std::string& submit = file(plan, "submit-all.sh");
    EXPECT_TRUE(contains(submit, "sbatch sibench-n2.sbatch\nsbatch sibench-n4.sbatch\n"));
}

TEST(SibenchSbatch, HelpersAccountAndSelection) {
    const Profile profile = parse_profile_text(kProfile, "cluster.toml");
    SbatchOptions o = options();
    o.account = "proj42";
    o.helpers = std::vector<int>{1};
    o.filter.studies = {"scalability"};
    o.filter.configs = {"simpi-smart"};
    const SbatchPlan plan = plan_sbatch(profile, o);
    const std::string& n2 = file(plan, "sibench-n2.sbatch");
    EXPECT_TRUE(contains(n2, "#SBATCH --account=proj42\n"));
    EXPECT_FALSE(contains(n2, "simpi-smart-h2"));
    EXPECT_FALSE(contains(n2, "run overlap."));
    EXPECT_EQ(plan.manifest.size(), 4u);  // 2 node counts x 2 ranks-per-node, h1 only
}

TEST(SibenchSbatch, InvalidOptionsNameTheOption) {
    const Profile profile = parse_profile_text(kProfile, "cluster.toml");
    const auto expect = [&](SbatchOptions o, const std::string& option) {
        try {
            plan_sbatch(profile, o);
            FAIL() << option;
        } catch (const std::invalid_argument& error) {
            EXPECT_TRUE(contains(error.what(), option)) << error.what();
        }
    };
    SbatchOptions o = options();
    o.time = "2h";
    expect(o, "--time");
    o = options();
    o.nodes = {1};
    expect(o, "--nodes");
    o = options();
    o.out_dir = "relative/dir";
    expect(o, "--out");
    o = options();
    o.partition.clear();
    expect(o, "--partition");
    o = options();
    o.ranks_per_node = {0};
    expect(o, "--ranks-per-node");
}

TEST(SibenchSbatch, WritesScriptsManifestAndProfile) {
    test::ScratchDir dir;
    const std::string profile_path = dir.file("cluster.toml");
    test::write_text(profile_path, kProfile);
    SbatchOptions o = options();
    o.out_dir = dir.file("sweep");
    const SbatchPlan plan = plan_sbatch(parse_profile_file(profile_path), o);
    write_sbatch(plan, o, profile_path);
    namespace fs = std::filesystem;
    EXPECT_TRUE(fs::exists(dir.file("sweep/status")));
    EXPECT_TRUE(fs::exists(dir.file("sweep/profile.toml")));
    EXPECT_NE(fs::status(dir.file("sweep/sibench-n2.sbatch")).permissions() & fs::perms::owner_exec,
              fs::perms::none);
    ASSERT_TRUE(is_sbatch_dir(o.out_dir));
    const auto runs = read_sbatch_status(o.out_dir);
    EXPECT_EQ(runs.size(), plan.manifest.size());
    EXPECT_EQ(runs.front().command, plan.manifest.front().command);
}

}  // namespace
}  // namespace si::harness
