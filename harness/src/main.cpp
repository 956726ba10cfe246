// sibench: runs the benchmark matrices of a profile, draws the figures, compares
// results against a reference, writes Slurm sweeps. See harness/README.md.
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "compare.hpp"
#include "config.hpp"
#include "machine.hpp"
#include "profile.hpp"
#include "results.hpp"
#include "run.hpp"
#include "sbatch.hpp"
#include "trace.hpp"

namespace {

using namespace si::harness;

// Exit status of usage and input errors, apart from 1 (a failed sweep or a regression).
constexpr int kUsageError = 2;

void add_selection(CLI::App& command, MatrixFilter& filter, std::vector<int>& helpers) {
    command
        .add_option("--only", filter.studies,
                    "Run only these studies of the profile (comma-separated)")
        ->delimiter(',');
    command
        .add_option("--configs", filter.configs,
                    "Run only these configurations (comma-separated names or prefixes: " +
                        valid_config_names() + ")")
        ->delimiter(',');
    command
        .add_option("--helpers", helpers, "Helper counts for simpi-smart, replacing the profile's")
        ->delimiter(',')
        ->check(CLI::Range(1, 64));
}

int compare_command(const std::string& reference, const std::string& current,
                    const std::string& tolerance, const std::vector<std::string>& stats,
                    bool fail_on_missing, bool all_rows) {
    CompareOptions options;
    options.tolerances = parse_tolerances(tolerance);
    options.statistics = stats;
    options.fail_on_missing = fail_on_missing;
    const auto report = compare_rows(read_rows(reference), read_rows(current), options);
    std::cout << format_report(report, all_rows, fail_on_missing);
    const int status = report.exit_code(options);
    if (report.compared == 0)
        std::cout << "FAIL: no row of the reference was found in the current results\n";
    else if (status != 0)
        std::cout << "FAIL\n";
    else
        std::cout << "PASS\n";
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "sibench: runs benchmark matrices (TOML profiles), plots them, gates regressions, "
        "writes Slurm sweeps"};
    app.require_subcommand(1);

    RunOptions run;
    std::vector<int> run_helpers;
    double run_timeout = 0;
    bool no_plot = false;
    auto* run_cmd = app.add_subcommand("run", "Run a profile's matrix into a new run directory");
    run_cmd
        ->add_option("--profile", run.profile, "Profile name (quick, full, smoke) or a .toml path")
        ->required();
    run_cmd
        ->add_option("--build", run.build_dir, "Build directory holding bin/ (sirun, benchmarks)")
        ->capture_default_str();
    run_cmd
        ->add_option("--out", run.out_dir,
                     "Results root: runs go to OUT/<profile>/<host>-<UTC time>")
        ->capture_default_str();
    run_cmd->add_option("--run-dir", run.run_dir, "Write into exactly this directory instead");
    add_selection(*run_cmd, run.filter, run_helpers);
    run_cmd->add_option("--timeout", run_timeout, "Seconds per run, replacing the profile's")
        ->check(CLI::PositiveNumber);
    run_cmd->add_flag("--dry-run", run.dry_run, "Print the runs and their commands, run nothing");
    run_cmd->add_flag("--strict", run.strict,
                      "Exit 1 when any run fails (default: only when all fail)");
    run_cmd->add_flag("--allow-missing", run.allow_missing,
                      "Exit 0 even when a configuration cannot run here (not installed, not "
                      "built): its runs are skipped and listed");
    run_cmd->add_flag("--no-plot", no_plot, "Skip figures and summary");

    std::string plot_dir;
    auto* plot_cmd = app.add_subcommand(
        "plot",
        "Redraw figures and summary of a run directory (collects an sbatch directory first)");
    plot_cmd->add_option("dir", plot_dir, "Run directory")
        ->required()
        ->check(CLI::ExistingDirectory);

    std::string reference, current, tolerance;
    std::vector<std::string> stats = {"median"};
    bool fail_on_missing = false, all_rows = false;
    auto* compare_cmd =
        app.add_subcommand("compare", "Regression gate: current results against a reference");
    compare_cmd
        ->add_option("--reference", reference, "Reference CSV (results.csv or a benchmark CSV)")
        ->required()
        ->check(CLI::ExistingFile);
    compare_cmd->add_option("--current", current, "Current CSV")
        ->required()
        ->check(CLI::ExistingFile);
    compare_cmd->add_option(
        "--tolerance", tolerance,
        "NAME=AMOUNT[%],...: absolute without %, relative with; NAME is a "
        "measurement (overlap_at_lat), a family (arrival) or default. Defaults: "
        "%-metrics 5 points, others 10%");
    compare_cmd->add_option("--stats", stats, "Statistics compared: median, mean, min, max or all")
        ->delimiter(',')
        ->check(CLI::IsMember({"median", "mean", "min", "max", "all"}))
        ->capture_default_str();
    compare_cmd->add_flag("--fail-on-missing", fail_on_missing,
                          "Fail when a reference row is missing from the current results");
    compare_cmd->add_flag("--all", all_rows, "List every compared row, not only regressions");

    SbatchOptions sb;
    std::string sb_profile, sb_build = "build";
    std::vector<int> sb_helpers;
    auto* sbatch_cmd =
        app.add_subcommand("sbatch", "Write Slurm job scripts for a profile's sweep");
    sbatch_cmd->add_option("--profile", sb_profile, "Profile name or .toml path")->required();
    sbatch_cmd->add_option("--nodes", sb.nodes, "Node counts, one job script each (e.g. 2,4,8)")
        ->required()
        ->delimiter(',');
    sbatch_cmd
        ->add_option("--ranks-per-node", sb.ranks_per_node,
                     "Ranks per node (scaling studies: all; others: the first)")
        ->delimiter(',')
        ->default_str("1");
    sbatch_cmd->add_option("--partition", sb.partition, "Slurm partition")->required();
    sbatch_cmd->add_option("--time", sb.time, "Time limit per job, HH:MM:SS")->required();
    sbatch_cmd->add_option("--account", sb.account, "Slurm account");
    sbatch_cmd->add_option("--out", sb.out_dir, "Output directory on a shared file system")
        ->required();
    sbatch_cmd->add_option("--build", sb_build, "Build directory (its bin/ as seen from the nodes)")
        ->capture_default_str();
    add_selection(*sbatch_cmd, sb.filter, sb_helpers);

    std::string trace_prefix, trace_out;
    int trace_repetitions = 3;
    auto* trace_cmd = app.add_subcommand(
        "trace", "Stages of every rendezvous transfer in a run's SI_TRACE files: table and figures");
    trace_cmd->add_option("prefix", trace_prefix, "The SI_TRACE path the run used")->required();
    trace_cmd->add_option("--out", trace_out, "Directory for the report (default: <prefix>-report)");
    trace_cmd->add_option("--repetitions", trace_repetitions, "Transfers drawn in the timeline")
        ->check(CLI::Range(1, 20))
        ->capture_default_str();

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        // CLI11 prints the message (naming the option); --help is a success.
        return app.exit(error) == 0 ? 0 : kUsageError;
    }

    const char* where = "sibench";
    try {
        if (run_cmd->parsed()) {
            where = "sibench run";
            if (!run_helpers.empty()) run.filter.helpers = run_helpers;
            if (run_timeout > 0) run.timeout_s = run_timeout;
            run.plot = !no_plot;
            return run_sweep(run);
        }
        if (plot_cmd->parsed()) {
            where = "sibench plot";
            return plot_results(plot_dir);
        }
        if (trace_cmd->parsed()) {
            where = "sibench trace";
            const auto events = read_trace(trace_prefix);
            const auto transfers = rebuild_transfers(events);
            const std::string dir = trace_out.empty() ? trace_prefix + "-report" : trace_out;
            std::vector<std::string> notes;
            std::cout << write_trace_report(transfers, events, dir, trace_repetitions, notes);
            for (const auto& note : notes) std::cout << "note: " << note << '\n';
            std::cout << fmt::format("{} events, {} transfers; report in {}\n", events.size(),
                                     transfers.size(), dir);
            return 0;
        }
        if (compare_cmd->parsed()) {
            where = "sibench compare";
            return compare_command(reference, current, tolerance, stats, fail_on_missing, all_rows);
        }
        if (sbatch_cmd->parsed()) {
            where = "sibench sbatch";
            namespace fs = std::filesystem;
            if (sb.ranks_per_node.empty()) sb.ranks_per_node = {1};
            if (!sb_helpers.empty()) sb.helpers = sb_helpers;
            const std::string profile_path = find_profile(sb_profile);
            const Profile profile = parse_profile_file(profile_path);
            sb.out_dir = fs::absolute(sb.out_dir).lexically_normal().string();
            sb.build_dir = fs::absolute(sb_build).lexically_normal().string();
            sb.sibench = sb.build_dir + "/bin/sibench";
            sb.commit = source_commit();
            sb.check_binaries = fs::is_directory(sb.build_dir + "/bin");
            const auto plan = plan_sbatch(profile, sb);
            std::set<std::string> left_out(plan.left_out.begin(), plan.left_out.end());
            for (const auto& why : left_out) std::cout << "left out: " << why << '\n';
            write_sbatch(plan, sb, profile_path);
            std::cout << fmt::format("{} runs in {} job scripts written to {}\n",
                                     plan.manifest.size(), plan.files.size() - 2, sb.out_dir);
            std::cout << fmt::format("submit: sh {}/submit-all.sh; then: {} plot {}\n", sb.out_dir,
                                     sb.sibench, sb.out_dir);
            return 0;
        }
    } catch (const std::exception& error) {
        std::cerr << where << ": error: " << error.what() << '\n';
        return kUsageError;
    }
    return kUsageError;
}
