// Application studies of any program (kind = "app", `sibench app`): the build a
// binary names, the profile's rules, the run matrix and commands, the rows read from
// a run's output and time, their results and the counters table.
#include "program_study.hpp"

#include <gtest/gtest.h>

#include "apps.hpp"
#include "run.hpp"
#include "sbatch.hpp"
#include "test_files.hpp"

namespace si::harness {
namespace {

using test::ScratchDir;
using test::write_text;

std::string error_of(const std::string& text) {
    try {
        parse_profile_text(text, "t.toml");
    } catch (const ProfileError& error) {
        return error.what();
    }
    return "accepted";
}

TEST(SibenchProgram, TheLibraryABinaryNamesTellsItsBuild) {
    EXPECT_EQ(abi_of_libraries({"libsimpi.so.0", "libc.so.6"}), ProgramAbi::simpi);
    EXPECT_EQ(abi_of_libraries({"libmpich.so.12"}), ProgramAbi::mpich);
    EXPECT_EQ(abi_of_libraries({"libmpichfort.so.12", "libgfortran.so.5", "libmpi.so.12"}),
              ProgramAbi::mpich);
    EXPECT_EQ(abi_of_libraries({"libmpi_mpifh.so.40", "libmpi.so.40"}), ProgramAbi::openmpi);
    EXPECT_EQ(abi_of_libraries({"libc.so.6"}), ProgramAbi::unknown);
    // This test links no MPI; a file that is not there cannot be read.
    EXPECT_EQ(program_abi("/proc/self/exe"), ProgramAbi::unknown);
    EXPECT_THROW(program_abi("/nonexistent/program"), std::invalid_argument);
}

TEST(SibenchProgram, ConfigurationsRunTheBuildTheyCan) {
    EXPECT_TRUE(config_runs(parse_config("simpi-none"), ProgramAbi::simpi));
    EXPECT_FALSE(config_runs(parse_config("simpi-none"), ProgramAbi::mpich));
    EXPECT_TRUE(config_runs(parse_config("simpi-smart-h1@mpich-abi"), ProgramAbi::mpich));
    EXPECT_FALSE(config_runs(parse_config("simpi-smart-h1@mpich-abi"), ProgramAbi::simpi));
    EXPECT_TRUE(config_runs(parse_config("mpich-async"), ProgramAbi::mpich));
    EXPECT_TRUE(config_runs(parse_config("openmpi"), ProgramAbi::openmpi));
    EXPECT_FALSE(config_runs(parse_config("simpi-none@mpich-abi"), ProgramAbi::openmpi));
    for (const auto abi : {ProgramAbi::simpi, ProgramAbi::mpich, ProgramAbi::openmpi})
        for (const auto& name : default_program_configs(abi))
            EXPECT_TRUE(config_runs(parse_config(name), abi)) << name;
    EXPECT_EQ(default_program_configs(ProgramAbi::mpich).front(), "simpi-none@mpich-abi");
}

TEST(SibenchProgram, ProfileStudyOfAProgram) {
    const Profile p = parse_profile_text(R"toml(
[[study]]
kind = "app"
program = "/bin/true"
args = ["-x", "1"]
metric = "Mop/s total += +([0-9.]+)"
metric_unit = "Mop/s"
)toml",
                                         "t.toml");
    const Study& s = p.studies.at(0);
    EXPECT_EQ(s.kind, "app");
    EXPECT_EQ(s.name, "true");
    EXPECT_EQ(s.benchmark, "true");
    EXPECT_EQ(s.ranks, std::vector<int>{2});
    EXPECT_EQ(s.rounds, 3);
    EXPECT_TRUE(s.pairs.empty());
    // A binary that names no MPI: this runtime's modes.
    ASSERT_EQ(s.configs.size(), 3u);
    EXPECT_EQ(s.configs[0].name(), "simpi-none");
    EXPECT_EQ(s.merit.unit, "Mop/s");
    EXPECT_TRUE(s.merit.higher_is_better);
    EXPECT_EQ(benchmark_args(s), (std::vector<std::string>{"-x", "1"}));

    // A bare name is found in PATH; the name of the study comes from the file's.
    const Profile q = parse_profile_text(
        "[[study]]\nkind = \"app\"\nprogram = \"true\"\nconfigs = [\"mpich\"]\n", "t.toml");
    EXPECT_EQ(q.studies.at(0).program.front(), '/');
    EXPECT_EQ(q.studies.at(0).configs.at(0).name(), "mpich");
}

TEST(SibenchProgram, ProfileErrorsNameTheKey) {
    const std::string head = "[[study]]\nkind = \"app\"\n";
    EXPECT_NE(error_of(head).find("'program'"), std::string::npos);
    EXPECT_NE(error_of(head + "program = \"no-such-program-here\"\n").find("not in PATH"),
              std::string::npos);
    const std::string with = head + "program = \"/bin/true\"\n";
    EXPECT_NE(error_of(with + "metric = \"Mop/s [0-9.]+\"\n").find("capture group"),
              std::string::npos);
    EXPECT_NE(error_of(with + "metric = \"([0-9\"\n").find("not a regular expression"),
              std::string::npos);
    EXPECT_NE(error_of(with + "metric_unit = \"s\"\n").find("only with `metric`"),
              std::string::npos);
    EXPECT_NE(
        error_of(with + "metric = \"(x)\"\nmetric_better = \"more\"\n").find("higher or lower"),
        std::string::npos);
    EXPECT_NE(error_of(with + "sizes = [\"1k\"]\n").find("unknown key"), std::string::npos);
    EXPECT_NE(error_of(head + "program = \"/bin/true\"\nname = \"Big\"\n").find("lower-case"),
              std::string::npos);
    EXPECT_NE(error_of("[[study]]\nkind = \"nope\"\nbenchmark = \"x\"\n").find("app (any MPI"),
              std::string::npos);
}

TEST(SibenchProgram, RunsAndCommands) {
    const auto runs = expand_matrix(parse_profile_text(R"toml(
[[study]]
kind = "app"
name = "np"
program = "/opt/NPmpi"
args = ["-u", "1024"]
ranks = [2]
rounds = 2
configs = ["simpi-smart@mpich-abi", "mpich-async"]
metric = "([0-9.]+) Mbps"
metric_better = "lower"
)toml",
                                                       "t.toml"));
    std::vector<std::string> ids;
    for (const auto& run : runs) ids.push_back(run.id);
    EXPECT_EQ(ids, (std::vector<std::string>{
                       "np.simpi-smart-h1@mpich-abi.r2.round1", "np.mpich-async.r2.round1",
                       "np.simpi-smart-h1@mpich-abi.r2.round2", "np.mpich-async.r2.round2"}));
    ASSERT_EQ(runs.size(), 4u);
    EXPECT_EQ(runs[0].program, "/opt/NPmpi");
    EXPECT_FALSE(runs[0].merit.higher_is_better);
    LaunchSite site;
    site.bin_dir = "/b/bin";
    site.hydra = "/usr/bin/mpiexec.hydra";
    EXPECT_EQ(benchmark_binary(runs[0], site.bin_dir), "/opt/NPmpi");
    const Command smart = local_command(runs[0], site, "raw/x.csv");
    EXPECT_EQ(smart.display(),
              "SI_PROGRESS=smart SI_HELPERS=1 /b/bin/sirun --abi mpich -n 2 --timeout 595 "
              "/opt/NPmpi -u 1024");
    // MPICH's progress thread needs MPI_THREAD_MULTIPLE, which NetPIPE does not ask for.
    const Command async = local_command(runs[1], site, "raw/x.csv");
    EXPECT_NE(async.display().find("MPIR_CVAR_DEFAULT_THREAD_LEVEL=MPI_THREAD_MULTIPLE"),
              std::string::npos)
        << async.display();
    EXPECT_EQ(async.display().find("--csv"), std::string::npos) << async.display();
}

TEST(SibenchProgram, WhyARunCannotStart) {
    PlannedRun run;
    run.kind = "app";
    run.config = parse_config("mpich");
    LaunchSite site;
    site.bin_dir = "/b/bin";
    site.hydra = "/usr/bin/mpiexec.hydra";
    run.program = "/nonexistent/program";
    EXPECT_NE(program_missing_reason(run, site).find("not there"), std::string::npos);
    run.program = "/bin/true";
    EXPECT_NE(program_missing_reason(run, site).find("names no MPI library"), std::string::npos);
    site.hydra.clear();
    EXPECT_NE(program_missing_reason(run, site).find("mpiexec.hydra"), std::string::npos);
}

PlannedRun merit_run(const std::string& pattern, bool higher) {
    PlannedRun run;
    run.kind = "app";
    run.study = "np";
    run.benchmark = "NPmpi";
    run.program = "/opt/NPmpi";
    run.config = parse_config("simpi-none@mpich-abi");
    run.job_ranks = 2;
    run.merit = {pattern, "GB/s", higher};
    return run;
}

TEST(SibenchProgram, RowsFromTheWallTimeAndTheLastMatchingLine) {
    ScratchDir dir;
    write_text(dir.file("log"), "rate 1.5 GB/s\nnoise\nrate 2.5 GB/s\nend\n");
    const SuiteOutput output = record_program_output(merit_run("rate ([0-9.]+) GB/s", true), 3.25,
                                                     dir.file("log"), dir.file("out.csv"));
    EXPECT_TRUE(output.failure.empty()) << output.failure;
    const auto rows = read_rows(dir.file("out.csv"));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].suite, "app");
    EXPECT_EQ(rows[0].metric, "time_wall");
    EXPECT_DOUBLE_EQ(rows[0].value, 3.25);
    EXPECT_EQ(rows[1].metric, "rate_merit");
    EXPECT_DOUBLE_EQ(rows[1].value, 2.5);
    EXPECT_EQ(rows[1].unit, "GB/s");
    EXPECT_EQ(rows[1].ranks, 2);

    const SuiteOutput lower = record_program_output(merit_run("rate ([0-9.]+)", false), 1,
                                                    dir.file("log"), dir.file("lower.csv"));
    EXPECT_EQ(read_rows(dir.file("lower.csv")).at(1).metric, "time_merit");

    const SuiteOutput none = record_program_output(merit_run("Mop/s = ([0-9.]+)", true), 1,
                                                   dir.file("log"), dir.file("none.csv"));
    EXPECT_NE(none.failure.find("no line of the output matches"), std::string::npos);
    const SuiteOutput word = record_program_output(merit_run("rate ([a-z0-9.]+) GB", true), 1,
                                                   dir.file("log"), dir.file("word.csv"));
    EXPECT_TRUE(word.failure.empty()) << word.failure;
    const SuiteOutput text =
        record_program_output(merit_run("(noise)", true), 1, dir.file("log"), dir.file("t.csv"));
    EXPECT_NE(text.failure.find("not a number"), std::string::npos);
    // Without a pattern, the wall time alone.
    const SuiteOutput wall =
        record_program_output(merit_run("", true), 1, dir.file("log"), dir.file("w.csv"));
    EXPECT_EQ(read_rows(dir.file("w.csv")).size(), 1u);
}

Row program_row(const std::string& config, int round, const std::string& metric, double value) {
    Row r;
    r.suite = "app";
    r.benchmark = "np.mpich";  // a file name with a dot, which is no NPB class
    r.study = "np";
    r.config = config;
    r.ranks = 2;
    r.round = round;
    r.metric = metric;
    r.value = value;
    r.unit = metric == "time_wall" ? "s" : "GB/s";
    return r;
}

TEST(SibenchProgram, SpeedUpOverNoneThroughTheSameAbi) {
    std::vector<Row> rows;
    const double none[] = {4, 8}, smart[] = {2, 4};
    for (int round = 1; round <= 2; ++round) {
        rows.push_back(program_row("simpi-none@mpich-abi", round, "time_wall", none[round - 1]));
        rows.push_back(program_row("simpi-none@mpich-abi", round, "rate_merit", 10));
        rows.push_back(
            program_row("simpi-smart-h1@mpich-abi", round, "time_wall", smart[round - 1]));
        rows.push_back(program_row("mpich", round, "time_wall", 8));
    }
    const auto results = app_results(rows);
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].suite, "app");
    EXPECT_DOUBLE_EQ(*results[0].merit, 10);
    EXPECT_EQ(results[0].merit_unit, "GB/s");
    EXPECT_EQ(results[1].config, "simpi-smart-h1@mpich-abi");
    EXPECT_DOUBLE_EQ(*results[1].speedup, 2);
    // MPICH against the same build's none through the ABI (no simpi-none ran).
    EXPECT_EQ(results[2].config, "mpich");
    EXPECT_DOUBLE_EQ(*results[2].speedup, 0.75);
    const std::string table = format_app_summary(results);
    EXPECT_NE(table.find("10 GB/s"), std::string::npos) << table;
    EXPECT_NE(table.find("wall time from launch to exit"), std::string::npos) << table;
    EXPECT_EQ(table.find("NPB's time"), std::string::npos) << table;
    const auto figures = app_figures(results);
    ASSERT_EQ(figures.size(), 1u);
    EXPECT_EQ(figures[0].name, "np");
    EXPECT_NE(figures[0].ylabel.find("wall time"), std::string::npos);
}

TEST(SibenchProgram, CountersPerRunOfAProgramStudy) {
    std::vector<CounterRow> counters;
    const auto add = [&](const std::string& run, int rank, const std::string& name,
                         std::uint64_t value) {
        counters.push_back({run, "np", "simpi-smart-h1", rank, name, value});
    };
    for (const char* run : {"np.a.round1", "np.a.round2"}) {
        add(run, 0, "wakeups", 10);
        add(run, 1, "wakeups", 30);
        add(run, 0, "futile_wakeups", 4);
        add(run, 0, "rdma_read_bytes_in_background", 1 << 20);
        add(run, 1, "direct_write_bytes", 1 << 20);
        add(run, 0, "helper0_cpu_us", 500000);
        add(run, 0, "rdma_read_bytes", 1 << 30);  // not in the background
    }
    counters.push_back({"x.r", "other", "simpi-smart-h1", 0, "wakeups", 99});
    const std::string table = format_background_table(counters, {"np"});
    // Per run: 40 wake-ups, 4 futile, 2 MiB, 0.5 s.
    EXPECT_NE(table.find("np               simpi-smart-h1               2         40          4"
                         "          2.0         0.500"),
              std::string::npos)
        << table;
    EXPECT_EQ(table.find("other"), std::string::npos) << table;
    EXPECT_TRUE(format_background_table(counters, {}).empty());
}

TEST(SibenchProgram, TheCommandLineWritesAProfileThatReadsBack) {
    ProgramRunRequest request;
    request.program = "/bin/true";
    request.args = {"--size", "8"};
    request.ranks = {4};
    request.configs = {"simpi-none", "openmpi"};
    request.rounds = 5;
    request.merit = {"t = ([0-9.]+)", "s", false};
    request.env = {{"SI_EAGER_LIMIT", "16k"}};
    const Profile p = parse_profile_text(program_profile_text(request), "app");
    EXPECT_EQ(p.name, "app-true");
    const Study& s = p.studies.at(0);
    EXPECT_EQ(s.program, "/bin/true");
    EXPECT_EQ(s.args, request.args);
    EXPECT_EQ(s.ranks, request.ranks);
    EXPECT_EQ(s.configs.size(), 2u);
    EXPECT_EQ(s.rounds, 5);
    EXPECT_EQ(s.merit.pattern, "t = ([0-9.]+)");
    EXPECT_FALSE(s.merit.higher_is_better);
    EXPECT_EQ(s.env, request.env);
    EXPECT_EQ(study_name_of_program("/x/NP-mpich2.x"), "np-mpich2_x");
}

TEST(SibenchProgram, SbatchRunsTheProgramItself) {
    const Profile p = parse_profile_text(
        "[[study]]\nkind = \"app\"\nname = \"np\"\nprogram = \"/bin/true\"\nargs = [\"-n\", "
        "\"5\"]\nranks = [4]\nrounds = 1\nconfigs = [\"simpi-none\", \"mpich-async\"]\n",
        "t.toml");
    SbatchOptions o;
    o.nodes = {2};
    o.ranks_per_node = {2};
    o.partition = "ib";
    o.time = "1:00:00";
    o.build_dir = "/b";
    o.out_dir = "/o";
    const SbatchPlan plan = plan_sbatch(p, o);
    ASSERT_EQ(plan.manifest.size(), 2u);
    EXPECT_EQ(plan.manifest[0].id, "np.simpi-none.n2x4");
    const std::string& async = plan.manifest[1].command;
    EXPECT_NE(async.find("srun --mpi=pmi2"), std::string::npos) << async;
    EXPECT_NE(async.find("/bin/true -n 5"), std::string::npos) << async;
    EXPECT_EQ(async.find("--csv"), std::string::npos) << async;
    EXPECT_NE(async.find("MPIR_CVAR_DEFAULT_THREAD_LEVEL"), std::string::npos) << async;
}

TEST(SibenchProgram, AnSbatchDirectoryGetsItsRowsFromLogsAndStatus) {
    ScratchDir dir;
    write_text(dir.file("profile.toml"),
               "[[study]]\nkind = \"app\"\nname = \"np\"\nprogram = \"/bin/true\"\n"
               "configs = [\"simpi-none@mpich-abi\"]\nmetric = \"rate ([0-9.]+)\"\n");
    RunRecord run;
    run.id = "np.simpi-none@mpich-abi.n2x4";
    run.study = "np";
    run.benchmark = "true";
    run.config = "simpi-none@mpich-abi";
    run.ranks = 4;
    run.log = "logs/" + run.id + ".log";
    run.csv = "raw/" + run.id + ".csv";
    write_runs(dir.file("manifest.csv"), {run});
    write_text(dir.file("status/" + run.id), "0 100.0 102.5\n");
    write_text(dir.file(run.log), "rate 7\n");
    std::filesystem::create_directories(dir.file("raw"));
    const Collected collected = collect_results(dir.path());
    ASSERT_EQ(collected.rows.size(), 2u);
    EXPECT_DOUBLE_EQ(collected.rows[0].value, 2.5);
    EXPECT_DOUBLE_EQ(collected.rows[1].value, 7);
    EXPECT_EQ(collected.rows[1].ranks, 4);
    EXPECT_EQ(collected.rows[1].config, "simpi-none@mpich-abi");
    // The rows name the whole configuration, which is no mismatch.
    EXPECT_TRUE(collected.notes.empty()) << collected.notes.front();
}

}  // namespace
}  // namespace si::harness
