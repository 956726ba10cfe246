// sibench: runs the benchmark matrices of a profile, draws the figures, compares
// results against a reference, writes Slurm sweeps. See harness/README.md.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "compare.hpp"
#include "config.hpp"
#include "machine.hpp"
#include "process.hpp"
#include "profile.hpp"
#include "program_study.hpp"
#include "results.hpp"
#include "doctor.hpp"
#include "report.hpp"
#include "run.hpp"
#include "sbatch.hpp"
#include "suites/suite_runs.hpp"
#include "trace.hpp"

namespace {

using namespace si::harness;

// Exit status of usage and input errors, apart from 1 (a failed sweep or a regression).
constexpr int kUsageError = 2;

void add_selection(CLI::App& command, MatrixFilter& filter, std::vector<int>& helpers,
                   int& rounds) {
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
    command
        .add_option("--rounds", rounds,
                    "Run every selected study's configurations this many times, round by "
                    "round, replacing the profiles' rounds")
        ->check(CLI::Range(1, 1000));
}

int compare_command(const std::string& reference, const std::string& current,
                    const std::string& tolerance, const std::vector<std::string>& stats,
                    const std::vector<std::string>& baselines, bool fail_on_missing,
                    bool all_rows) {
    CompareOptions options;
    options.tolerances = parse_tolerances(tolerance);
    options.statistics = stats;
    options.fail_on_missing = fail_on_missing;
    for (const std::string& baseline : baselines) parse_config(baseline);  // a known name
    const auto rows_of = [&](const std::string& path) {
        std::vector<Row> rows = read_rows(path);
        return baselines.empty() ? rows : relative_to_baselines(rows, baselines);
    };
    const auto report = compare_rows(rows_of(reference), rows_of(current), options);
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

// `--source osu=DIR,npb=DIR` as a map; throws std::invalid_argument naming a bad entry.
std::map<std::string, std::string> parse_sources(const std::vector<std::string>& entries) {
    std::map<std::string, std::string> sources;
    for (const auto& entry : entries) {
        const auto equals = entry.find('=');
        if (equals == std::string::npos || equals == 0 || equals + 1 == entry.size())
            throw std::invalid_argument(
                fmt::format("--source: '{}' is not SUITE=DIR (suites: {})", entry, kSuiteNames));
        const std::string suite = entry.substr(0, equals);
        parse_suite_kind(suite);
        sources[suite] = entry.substr(equals + 1);
    }
    return sources;
}

struct SuiteBuildOptions {
    std::string suite, source, build_dir = "build", out_dir = "results", work_dir;
    std::vector<std::string> libraries = {"simpi", "mpich", "openmpi"};
    std::vector<std::string> benchmarks;
    std::vector<int> ranks;
    bool check = false, rebuild = false;
};

// `sibench suite build`: every library asked for, what built and what did not. Exit
// status 0 when something built, 1 when nothing did.
int suite_build_command(const SuiteBuildOptions& options) {
    namespace fs = std::filesystem;
    const SuiteKind kind = parse_suite_kind(options.suite);
    const SuiteDriver& driver = suite_driver(kind);
    const std::string source = fs::absolute(options.source).lexically_normal().string();
    if (kind == SuiteKind::npb && (options.benchmarks.empty() || options.ranks.empty()))
        throw std::invalid_argument(
            "NPB builds one binary per benchmark and class (and with NPB 3.3 per process "
            "count): give --benchmarks sp.S,cg.S and --ranks 4");
    std::vector<std::string> targets;
    for (const auto& benchmark : options.benchmarks) {
        if (const std::string why = driver.check_benchmark(benchmark); !why.empty())
            throw std::invalid_argument(fmt::format("--benchmarks: '{}': {}", benchmark, why));
        for (int ranks : options.ranks.empty() ? std::vector<int>{2} : options.ranks) {
            const std::string target = driver.target_of(source, benchmark, ranks);
            if (std::find(targets.begin(), targets.end(), target) == targets.end())
                targets.push_back(target);
        }
    }
    if (kind == SuiteKind::imb) targets.clear();  // one program holds them all
    const std::string bin_dir = (fs::path(options.build_dir) / "bin").string();
    const std::string work =
        fs::absolute(options.work_dir.empty() ? fs::path(options.out_dir) / "work"
                                              : fs::path(options.work_dir))
            .lexically_normal()
            .string();
    install_interrupt_handler();
    int built = 0;
    for (const auto& library : options.libraries) {
        const Runtime runtime = library == "simpi"   ? Runtime::simpi
                                : library == "mpich" ? Runtime::mpich
                                                     : Runtime::openmpi;
        const auto result = build_suite({kind, source, options.check, runtime, targets}, work,
                                        fs::absolute(bin_dir).string(), options.rebuild);
        for (const auto& target : result.targets) built += target.status == "built";
        if (interrupted_by_user()) return 130;
    }
    std::cout << fmt::format("{} targets built in all; each work directory's build.csv lists "
                             "its targets\n",
                             built);
    return built > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "sibench: runs benchmark matrices (TOML profiles), plots them, gates regressions, "
        "writes Slurm sweeps"};
    app.require_subcommand(1);

    RunOptions run;
    std::vector<int> run_helpers;
    int run_rounds = 0;
    double run_timeout = 0;
    bool no_plot = false, run_report = false;
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
    add_selection(*run_cmd, run.filter, run_helpers, run_rounds);
    run_cmd->add_option("--timeout", run_timeout, "Seconds per run, replacing the profile's")
        ->check(CLI::PositiveNumber);
    run_cmd->add_flag("--dry-run", run.dry_run, "Print the runs and their commands, run nothing");
    run_cmd->add_flag("--strict", run.strict,
                      "Exit 1 when any run fails (default: only when all fail)");
    run_cmd->add_flag("--allow-missing", run.allow_missing,
                      "Exit 0 even when a configuration cannot run here (not installed, not "
                      "built): its runs are skipped and listed");
    run_cmd->add_flag("--no-plot", no_plot, "Skip figures and summary");
    run_cmd->add_flag("--report", run_report,
                      "Also write the thesis report (sibench report) into <run>/report");
    std::vector<std::string> run_sources;
    run_cmd
        ->add_option("--source", run_sources,
                     "Third-party suites' sources, replacing the profile's: "
                     "osu=DIR,imb=DIR,npb=DIR")
        ->delimiter(',');
    run_cmd->add_option("--work", run.work_dir, "Where suites are built (default: OUT/work)");
    run_cmd->add_flag("--rebuild", run.rebuild, "Build the profile's suites afresh");

    auto* suite_cmd = app.add_subcommand(
        "suite", "Third-party suites (OSU, IMB, NPB) from their sources: build, run");
    suite_cmd->require_subcommand(1);
    SuiteBuildOptions sbo;
    auto* suite_build_cmd = suite_cmd->add_subcommand(
        "build", "Build a suite out of its source tree, once per MPI library");
    SuiteRunRequest srr;
    RunOptions suite_run;
    bool suite_run_no_plot = false;
    auto* suite_run_cmd = suite_cmd->add_subcommand(
        "run", "Build a suite if needed and run its benchmarks in every configuration");
    for (auto* command : {suite_build_cmd, suite_run_cmd}) {
        const bool build = command == suite_build_cmd;
        command
            ->add_option("--suite", build ? sbo.suite : srr.suite, "osu, imb or npb")
            ->required()
            ->check(CLI::IsMember({"osu", "imb", "npb"}));
        command
            ->add_option("--source", build ? sbo.source : srr.source,
                         "The suite's unpacked sources (never written to)")
            ->required()
            ->check(CLI::ExistingDirectory);
        command
            ->add_option("--build", build ? sbo.build_dir : suite_run.build_dir,
                         "Build directory of this runtime (bin/sicc, sicxx, sifort, sirun)")
            ->capture_default_str();
        command
            ->add_option("--out", build ? sbo.out_dir : suite_run.out_dir,
                         "Results root; suites are built in OUT/work")
            ->capture_default_str();
        command->add_option("--work", build ? sbo.work_dir : suite_run.work_dir,
                            "Where suites are built instead of OUT/work");
        command->add_flag("--check", build ? sbo.check : srr.check,
                          "IMB: build with -DCHECK (results checked, defects recorded)");
        command->add_flag("--rebuild", build ? sbo.rebuild : suite_run.rebuild,
                          "Empty the suite's work directories first");
        command
            ->add_option("--benchmarks", build ? sbo.benchmarks : srr.benchmarks,
                         "osu_latency,osu_bw / PingPong,Allreduce / sp.S,cg.W")
            ->delimiter(',')
            ->allow_extra_args(false);
        command
            ->add_option("--ranks", build ? sbo.ranks : srr.ranks,
                         build ? "NPB: job sizes to build for (3.3 compiles them in)"
                               : "Job sizes (default 2)")
            ->delimiter(',')
            ->allow_extra_args(false)
            ->check(CLI::Range(1, 1 << 20));
    }
    suite_build_cmd
        ->add_option("--libs", sbo.libraries, "MPI libraries: simpi, mpich, openmpi")
        ->delimiter(',')
        ->check(CLI::IsMember({"simpi", "mpich", "openmpi"}))
        ->capture_default_str();
    suite_run_cmd->get_option("--benchmarks")->required();
    suite_run_cmd
        ->add_option("--configs", srr.configs,
                     "Configurations (default: all): " + valid_config_names())
        ->delimiter(',')
        ->allow_extra_args(false);
    // One comma-separated value each (allow_extra_args(false)): a greedy list
    // option would swallow the `--` that starts the benchmarks' own arguments.
    suite_run_cmd->add_option("--helpers", srr.helpers, "Helper counts for simpi-smart")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(CLI::Range(1, 64));
    suite_run_cmd->add_option("--timeout", srr.timeout_s, "Seconds per run (default 600)")
        ->check(CLI::PositiveNumber);
    suite_run_cmd->add_option("--run-dir", suite_run.run_dir,
                              "Write into exactly this directory");
    suite_run_cmd->add_flag("--dry-run", suite_run.dry_run,
                            "Print the runs, build and run nothing");
    suite_run_cmd->add_flag("--strict", suite_run.strict, "Exit 1 when any run fails");
    suite_run_cmd->add_flag("--allow-missing", suite_run.allow_missing,
                            "Exit 0 even when some runs cannot start here");
    suite_run_cmd->add_flag("--no-plot", suite_run_no_plot, "Skip figures and summary");
    suite_run_cmd->add_option("args", srr.args,
                              "After --: options for every benchmark (e.g. -- -m 1:65536)");

    ProgramRunRequest prr;
    RunOptions app_run;
    std::vector<std::string> app_command, app_env;
    bool app_lower = false, app_no_plot = false;
    auto* app_cmd = app.add_subcommand(
        "app",
        "What asynchronous progress buys a program: run any MPI binary in every configuration "
        "that can run its build, rounds interleaved; wall time, figure of merit, speed-up, "
        "counters");
    app_cmd->add_option("--ranks", prr.ranks, "Job sizes (default 2)")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(CLI::Range(1, 1 << 20));
    app_cmd
        ->add_option("--configs", prr.configs,
                     "Configurations (default: those that can run the binary's build): " +
                         valid_config_names())
        ->delimiter(',')
        ->allow_extra_args(false);
    app_cmd->add_option("--helpers", prr.helpers, "Helper counts for simpi-smart")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(CLI::Range(1, 64));
    app_cmd->add_option("--rounds", prr.rounds, "Rounds, configurations interleaved in each")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    app_cmd->add_option("--metric", prr.merit.pattern,
                        "Regular expression whose first group is the program's figure of merit "
                        "(last matching line), e.g. 'Mop/s total += +([0-9.]+)'");
    app_cmd->add_option("--metric-unit", prr.merit.unit, "Unit of the figure of merit");
    app_cmd->add_flag("--lower-is-better", app_lower,
                      "The figure of merit is a time (default: higher is better)");
    app_cmd->add_option("--env", app_env, "KEY=VALUE for every run (repeat, or comma-separated)")
        ->delimiter(',')
        ->allow_extra_args(false);
    app_cmd->add_option("--name", prr.name, "Study name (default: from the program's file name)");
    app_cmd->add_option("--timeout", prr.timeout_s, "Seconds per run (default 600)")
        ->check(CLI::PositiveNumber);
    app_cmd->add_option("--build", app_run.build_dir, "Build directory of this runtime (bin/sirun)")
        ->capture_default_str();
    app_cmd->add_option("--out", app_run.out_dir, "Results root: OUT/app-<name>/<host>-<UTC time>")
        ->capture_default_str();
    app_cmd->add_option("--run-dir", app_run.run_dir, "Write into exactly this directory");
    app_cmd->add_flag("--dry-run", app_run.dry_run, "Print the runs, run nothing");
    app_cmd->add_flag("--strict", app_run.strict, "Exit 1 when any run fails");
    app_cmd->add_flag("--allow-missing", app_run.allow_missing,
                      "Exit 0 even when some configurations cannot run here");
    app_cmd->add_flag("--no-plot", app_no_plot, "Skip figures and summary");
    app_cmd->add_option("command", app_command, "After --: the program and its arguments")
        ->required();

    std::string plot_dir;
    auto* plot_cmd = app.add_subcommand(
        "plot",
        "Redraw figures and summary of a run directory (collects an sbatch directory first)");
    plot_cmd->add_option("dir", plot_dir, "Run directory")
        ->required()
        ->check(CLI::ExistingDirectory);

    std::string report_from, report_out, report_published, report_sections;
    bool report_pdf = false;
    auto* report_cmd = app.add_subcommand(
        "report",
        "The thesis' and the papers' published results beside a run directory's measurements");
    report_cmd->add_option("--from", report_from, "Run directory (sibench run, or an sbatch one)")
        ->required()
        ->check(CLI::ExistingDirectory);
    report_cmd->add_option("--out", report_out, "Where report.md goes (default: <run>/report)");
    report_cmd
        ->add_option("--published", report_published,
                     "The published values (default: harness/report/published.csv)")
        ->check(CLI::ExistingFile);
    report_cmd
        ->add_option("--sections", report_sections,
                     "What each section compares (default: harness/report/sections.toml)")
        ->check(CLI::ExistingFile);
    report_cmd->add_flag("--pdf", report_pdf,
                         "Also write report.pdf (needs cmark-gfm and weasyprint)");

    std::string reference, current, tolerance;
    std::vector<std::string> stats = {"median"};
    std::vector<std::string> baselines;
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
    compare_cmd
        ->add_option("--baseline", baselines,
                     "CONFIG,...: gate each configuration's figures relative to a baseline "
                     "measured in the same run (the first listed after it: simpi-none,mpich "
                     "gives smart/none and none/mpich), not absolute figures")
        ->delimiter(',');
    compare_cmd->add_flag("--fail-on-missing", fail_on_missing,
                          "Fail when a reference row is missing from the current results");
    compare_cmd->add_flag("--all", all_rows, "List every compared row, not only regressions");

    SbatchOptions sb;
    std::string sb_profile, sb_build = "build";
    std::vector<int> sb_helpers;
    int sb_rounds = 0;
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
    add_selection(*sbatch_cmd, sb.filter, sb_helpers, sb_rounds);

    DoctorOptions doctor;
    std::string doctor_build = "build", doctor_out;
    std::vector<std::string> doctor_needs;
    bool doctor_no_jobs = false;
    auto* doctor_cmd = app.add_subcommand(
        "doctor",
        "Preflight: what this node offers a run (RDMA, limits, module, placement, launchers, "
        "baselines) and a two-rank job; non-zero when something blocks a run");
    doctor_cmd->add_option("--build", doctor_build, "Build directory holding bin/")
        ->capture_default_str();
    doctor_cmd
        ->add_option("--need", doctor_needs,
                     "What a missing piece blocks: verbs (jobs across nodes), kmod (SI_WAKE=kmod)")
        ->delimiter(',')
        ->check(CLI::IsMember({"verbs", "kmod"}));
    doctor_cmd->add_option("--ranks", doctor.ranks, "Ranks per node to place (default: one per core)")
        ->check(CLI::Range(1, 4096));
    doctor_cmd->add_flag("--no-jobs", doctor_no_jobs, "Skip the two-rank smoke jobs");
    doctor_cmd->add_option("--out", doctor_out, "Also write the report to this file");

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
        if (suite_build_cmd->parsed()) {
            where = "sibench suite build";
            return suite_build_command(sbo);
        }
        if (suite_run_cmd->parsed()) {
            where = "sibench suite run";
            if (srr.ranks.empty()) srr.ranks = {2};
            srr.source = std::filesystem::absolute(srr.source).lexically_normal().string();
            suite_run.profile = "suite-" + srr.suite;
            suite_run.profile_text = suite_profile_text(srr);
            suite_run.plot = !suite_run_no_plot;
            return run_sweep(suite_run);
        }
        if (app_cmd->parsed()) {
            where = "sibench app";
            prr.program = app_command.front();
            prr.args.assign(app_command.begin() + 1, app_command.end());
            prr.merit.higher_is_better = !app_lower;
            for (const auto& entry : app_env) {
                const auto equals = entry.find('=');
                if (equals == std::string::npos || equals == 0)
                    throw std::invalid_argument(fmt::format("--env: '{}' is not KEY=VALUE", entry));
                prr.env.emplace_back(entry.substr(0, equals), entry.substr(equals + 1));
            }
            // Read back as any profile is read, which finds the program (PATH, or
            // the path made absolute); the profile kept in the run directory names it so.
            prr.program =
                parse_profile_text(program_profile_text(prr), "sibench app").studies[0].program;
            if (!std::filesystem::exists(prr.program))
                throw std::invalid_argument(fmt::format("{}: no such program", prr.program));
            const std::string text = program_profile_text(prr);
            app_run.profile = parse_profile_text(text, "sibench app").name;
            app_run.profile_text = text;
            app_run.plot = !app_no_plot;
            return run_sweep(app_run);
        }
        if (run_cmd->parsed()) {
            where = "sibench run";
            run.sources = parse_sources(run_sources);
            if (!run_helpers.empty()) run.filter.helpers = run_helpers;
            if (run_rounds > 0) run.filter.rounds = run_rounds;
            if (run_timeout > 0) run.timeout_s = run_timeout;
            run.plot = !no_plot;
            run.report = run_report;
            return run_sweep(run);
        }
        if (report_cmd->parsed()) {
            where = "sibench report";
            const std::string out =
                report_out.empty() ? report_from + "/report" : report_out;
            const auto counts = write_report(
                report_from,
                read_published(report_published.empty() ? report_data("published.csv")
                                                        : report_published),
                read_sections(report_sections.empty() ? report_data("sections.toml")
                                                      : report_sections),
                out);
            if (counts.measured == 0)
                std::cout << fmt::format("sibench report: nothing measured in {} (no results.csv? "
                                         "an sbatch directory needs `sibench plot` first)\n",
                                         report_from);
            std::cout << fmt::format(
                "{} results, {} measured here, {} reproduced; report in {}/report.md\n",
                counts.sections, counts.measured, counts.reproduced, out);
            if (!report_pdf) return 0;
            if (const std::string problem = write_report_pdf(out); !problem.empty()) {
                std::cerr << "sibench report: no PDF: " << problem << '\n';
                return 1;
            }
            std::cout << fmt::format("PDF in {}/report.pdf\n", out);
            return 0;
        }
        if (plot_cmd->parsed()) {
            where = "sibench plot";
            return plot_results(plot_dir);
        }
        if (doctor_cmd->parsed()) {
            where = "sibench doctor";
            doctor.bin_dir = (std::filesystem::path(doctor_build) / "bin").string();
            doctor.need_verbs = std::count(doctor_needs.begin(), doctor_needs.end(), "verbs") > 0;
            doctor.need_kmod = std::count(doctor_needs.begin(), doctor_needs.end(), "kmod") > 0;
            doctor.jobs = !doctor_no_jobs;
            const auto checks = run_doctor(doctor);
            const std::string text = format_doctor(checks);
            std::cout << text;
            if (!doctor_out.empty()) {
                std::ofstream out(doctor_out, std::ios::trunc);
                out << text;
                if (!out) throw std::runtime_error("cannot write " + doctor_out);
            }
            return doctor_exit_code(checks);
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
            return compare_command(reference, current, tolerance, stats, baselines, fail_on_missing,
                                   all_rows);
        }
        if (sbatch_cmd->parsed()) {
            where = "sibench sbatch";
            namespace fs = std::filesystem;
            if (sb.ranks_per_node.empty()) sb.ranks_per_node = {1};
            if (!sb_helpers.empty()) sb.helpers = sb_helpers;
            if (sb_rounds > 0) sb.filter.rounds = sb_rounds;
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
