// Command lines of one host's runs: which launcher, which environment.
#include "launch.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "profile.hpp"

namespace si::harness {
namespace {

PlannedRun planned_run(const std::string& config, const std::string& launcher) {
    const Profile profile = parse_profile_text(
        "[[study]]\nname = \"o\"\nbenchmark = \"overlap\"\nconfigs = [\"" + config +
            "\"]\nlauncher = \"" + launcher + "\"\n",
        "t.toml");
    return expand_matrix(profile).at(0);
}

PlannedRun smart_run(const std::string& launcher) {
    return planned_run("simpi-smart", launcher);
}

bool has_env(const Command& command, const std::string& key, const std::string& value) {
    return std::find(command.env.begin(), command.env.end(), std::pair{key, value}) !=
           command.env.end();
}

TEST(SibenchLaunch, ThisRuntimeUnderSirunOrHydra) {
    const LaunchSite site{"/b/bin", "/usr/bin/mpiexec.hydra", ""};
    const Command sirun = local_command(smart_run("sirun"), site, "x.csv");
    EXPECT_EQ(sirun.argv.at(0), "/b/bin/sirun");
    const Command hydra = local_command(smart_run("hydra"), site, "x.csv");
    ASSERT_GE(hydra.argv.size(), 4u);
    EXPECT_EQ(hydra.argv[0], "/usr/bin/mpiexec.hydra");
    EXPECT_EQ(hydra.argv[3], "/b/bin/overlap") << "this runtime's binary, not the .mpich twin";
    for (const Command* command : {&sirun, &hydra}) {
        EXPECT_TRUE(has_env(*command, "SI_PROGRESS", "smart")) << command->display();
        EXPECT_TRUE(has_env(*command, "SI_NODE_SIZE", "1")) << command->display();
    }
    EXPECT_NE(
        missing_reason(smart_run("hydra"), LaunchSite{"/b/bin", "", ""}).find("mpiexec.hydra"),
        std::string::npos);
}

TEST(SibenchLaunch, GhostMatchingStrategiesSetTheirKnob) {
    const LaunchSite site{"/b/bin", "", ""};
    const Command plain = local_command(planned_run("simpi-ghost", "sirun"), site, "x.csv");
    EXPECT_TRUE(has_env(plain, "SI_PROGRESS", "ghost")) << plain.display();
    for (const std::string strategy : {"dup", "tag"}) {
        const PlannedRun run = planned_run("simpi-ghost-" + strategy, "sirun");
        EXPECT_EQ(run.config.name(), "simpi-ghost-" + strategy);
        const Command command = local_command(run, site, "x.csv");
        EXPECT_TRUE(has_env(command, "SI_PROGRESS", "ghost")) << command.display();
        EXPECT_TRUE(has_env(command, "SI_GHOST_MATCHING", strategy)) << command.display();
    }
}

TEST(SibenchLaunch, MpichBuildThroughTheAbi) {
    const LaunchSite site{"/b/bin", "/usr/bin/mpiexec.hydra", ""};
    const PlannedRun run = planned_run("simpi-none@mpich-abi", "sirun");
    EXPECT_EQ(benchmark_binary(run, site.bin_dir), "/b/bin/overlap.mpich");
    const Command sirun = local_command(run, site, "x.csv");
    ASSERT_GE(sirun.argv.size(), 3u);
    EXPECT_EQ(sirun.argv[0], "/b/bin/sirun");
    EXPECT_EQ(sirun.argv[1], "--abi");
    EXPECT_EQ(sirun.argv[2], "mpich");
    EXPECT_TRUE(has_env(sirun, "SI_PROGRESS", "none")) << sirun.display();
    const Command hydra =
        local_command(planned_run("simpi-none@mpich-abi", "hydra"), site, "x.csv");
    EXPECT_TRUE(has_env(hydra, "LD_LIBRARY_PATH", "/b/lib/mpich-abi")) << hydra.display();
    EXPECT_EQ(hydra.argv.at(3), "/b/bin/overlap.mpich");
}

TEST(SibenchLaunch, UnknownLauncherIsRefused) {
    try {
        smart_run("srun");
        ADD_FAILURE() << "launcher srun accepted";
    } catch (const ProfileError& error) {
        EXPECT_NE(std::string(error.what()).find("launcher"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace si::harness
