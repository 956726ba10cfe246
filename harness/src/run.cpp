#include "run.hpp"
#include "report.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "apps.hpp"
#include "collectives.hpp"
#include "counters.hpp"
#include "derive.hpp"
#include "floor.hpp"
#include "gbench.hpp"
#include "instructions.hpp"
#include "launch.hpp"
#include "machine.hpp"
#include "plot.hpp"
#include "process.hpp"
#include "program_study.hpp"
#include "rma.hpp"
#include "rma_patterns.hpp"
#include "sbatch.hpp"
#include "suites/suite_figures.hpp"
#include "suites/suite_runs.hpp"
#include "summary.hpp"
#include "trace.hpp"
#include "units.hpp"

namespace si::harness {

namespace fs = std::filesystem;

namespace {

std::string run_label(const PlannedRun& run) {
    const std::string name =
        run.study == run.benchmark ? run.study : fmt::format("{} ({})", run.study, run.benchmark);
    return fmt::format("{} {} {} ranks", name, run.config.name(), run.ranks());
}

std::string status_of(const ProcessResult& result) {
    if (result.interrupted) return "interrupted";
    // 124: sirun's own --timeout (and GNU timeout's), which sibench sets a little
    // below its limit so that sirun can say which ranks hung.
    if (result.timed_out || result.exit_status == 124) return "timeout";
    if (!result.error.empty() || result.exit_status != 0) return "failed";
    return "ok";
}

// The profile a directory was made with (its copy), for the [plots] section.
PlotSpec plots_of(const std::string& dir) {
    const fs::path copy = fs::path(dir) / "profile.toml";
    if (!fs::exists(copy)) return {};
    try {
        return parse_profile_file(copy.string()).plots;
    } catch (const ProfileError& error) {
        std::cerr << "warning: " << error.what() << "; figures use the default [plots]\n";
        return {};
    }
}

// Runnable tasks other than this one, the mean of 20 samples of procs_running
// (/proc/stat) over 0.1 s, or -1 when the system does not say. Taken between
// runs, when the previous run's processes are gone: unlike the load average,
// which still counts them for a minute, it sees only other jobs.
double others_running() {
    constexpr int kSamples = 20;
    double total = 0;
    for (int i = 0; i < kSamples; ++i) {
        if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::ifstream in("/proc/stat");
        std::string key;
        double running = -1;
        while (in >> key) {
            if (key == "procs_running") {
                in >> running;
                break;
            }
            in.ignore(1 << 16, '\n');
        }
        if (running < 0) return -1;
        total += std::max(0.0, running - 1);
    }
    return total / kSamples;
}

unsigned cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// Busy: other jobs keep half a core or more occupied, which a pair of ranks on a
// small machine feels.
bool busy(double others) { return others >= 0.5; }

void warn_if_busy() {
    const double others = others_running();
    if (busy(others))
        std::cout << fmt::format(
            "warning: {:.1f} other tasks running on {} cores before the runs; expect noisy "
            "numbers\n",
            others, cores());
}

// Writes results.csv, runs.csv from what has been collected so far, so that a sweep
// that is interrupted or crashes leaves usable files.
void save(const std::string& dir, const std::vector<RunRecord>& runs, const Collected& collected,
          const std::string& profile_name) {
    write_runs((fs::path(dir) / "runs.csv").string(), runs);
    write_counters((fs::path(dir) / "counters.csv").string(), collect_counters(dir, runs));
    write_rows((fs::path(dir) / "results.csv").string(), collected.rows,
               {{"profile", profile_name}, {"written_by", "sibench"}, {"date", utc_timestamp()}});
}

// A run's raw CSV, its rows tagged with the run's config, study, pairs, id and round.
std::vector<Row> rows_of_run(const std::string& dir, const RunRecord& run,
                             std::vector<std::string>& notes) {
    const fs::path csv = fs::path(dir) / run.csv;
    if (!fs::exists(csv)) {
        notes.push_back(fmt::format("{}: exited 0 but wrote no {}", run.id, run.csv));
        return {};
    }
    std::vector<Row> rows;
    try {
        rows = read_rows(csv.string());
    } catch (const CsvError& error) {
        notes.push_back(fmt::format("{}: {}", run.id, error.what()));
        return {};
    }
    for (auto& row : rows) {
        // The benchmark says which runtime and mode it ran; a mismatch means the
        // configuration's settings did not reach it. (Rows sibench wrote from a
        // suite's or a program's output name the whole configuration.)
        if (csv_name_of(row.config) != csv_name_of(run.config))
            notes.push_back(fmt::format("{}: the CSV says {}, expected {}", run.id, row.config,
                                        csv_name_of(run.config)));
        row.config = run.config;
        row.study = run.study;
        row.pairs = run.pairs;
        row.run = run.id;
        row.ranks = run.ranks;
        row.round = round_of_run(run.id);
    }
    return rows;
}

// plots/, summary.txt and summary.csv of `rows`; prints the summary and the notes.
// Micro-benchmark figures and tables only when micro-benchmarks ran, application ones
// likewise.
void draw_and_summarize(const fs::path& dir, const std::vector<Row>& rows, const PlotSpec& plots,
                        const std::vector<RunRecord>& runs) {
    std::vector<Row> micro;
    std::copy_if(rows.begin(), rows.end(), std::back_inserter(micro), [](const Row& row) {
        return !is_application_suite(row.suite) && !is_third_party_suite(row.suite) &&
               row.suite != kGbenchSuite && row.suite != kInstructionsSuite;
    });
    // Beside every small-message latency and rate this sweep measured.
    const auto floor = find_cache_line_floor(rows);
    const auto apps = app_results(rows);
    std::vector<std::string> notes;
    std::vector<Figure> figures;
    std::string summary;
    if (!micro.empty()) {
        const ResultIndex index(micro);
        figures = thesis_figures(index, plots, notes);
        // The thesis' table when one of its studies ran (not for a ping-pong sweep).
        if (index.has_study(plots.overlap) || index.has_study(plots.latency) ||
            index.has_study(plots.memory))
            summary = format_summary(summarize(index, plots));
        if (const auto tables = pingpong_tables(index, plots); !tables.empty())
            summary += (summary.empty() ? "" : "\n") + format_pingpong_tables(tables, floor);
        if (const std::string blocked = format_blocked_tables(index); !blocked.empty())
            summary += (summary.empty() ? "" : "\n") + blocked;
        for (auto& figure : collective_figures(index, notes)) figures.push_back(std::move(figure));
        if (const std::string coll = format_collective_tables(index, plots.summary_sizes);
            !coll.empty())
            summary += (summary.empty() ? "" : "\n") + coll;
        for (auto& figure : rma_figures(index)) figures.push_back(std::move(figure));
        if (const std::string rma = format_rma_tables(index, plots.summary_sizes); !rma.empty())
            summary += (summary.empty() ? "" : "\n") + rma;
        for (auto& figure : rma_pattern_figures(index)) figures.push_back(std::move(figure));
        if (const std::string patterns = format_rma_pattern_tables(index); !patterns.empty())
            summary += (summary.empty() ? "" : "\n") + patterns;
        write_summary_csv((dir / "summary.csv").string(), index);
    }
    if (!apps.empty()) {
        for (auto& figure : app_figures(apps)) figures.push_back(std::move(figure));
        summary += (summary.empty() ? "" : "\n") + format_app_summary(apps);
    }
    // The OSU and IMB rows (NPB's are application results, above).
    if (const std::string suites = format_suite_summary(rows); !suites.empty()) {
        for (auto& figure : suite_figures(rows)) figures.push_back(std::move(figure));
        summary += (summary.empty() ? "" : "\n") + suites;
    }
    if (const std::string costs = format_gbench_summary(rows); !costs.empty())
        summary += (summary.empty() ? "" : "\n") + costs;
    if (const std::string counts = format_instruction_tables(instruction_tables(rows));
        !counts.empty())
        summary += (summary.empty() ? "" : "\n") + counts;
    if (floor) {
        mark_floor(figures, *floor);
        // A sweep with no table to put it under still says what it measured.
        if (summary.find("cache-line floor:") == std::string::npos)
            summary += (summary.empty() ? "" : "\n") + format_floor(*floor) + '\n';
    }
    const auto counters = read_counters((dir / "counters.csv").string());
    if (const std::string wakeups = format_wakeup_table(counters); !wakeups.empty())
        summary += (summary.empty() ? "" : "\n") + wakeups;
    std::vector<std::string> program_studies;
    for (const auto& app : apps)
        if (app.suite == kProgramSuite && std::find(program_studies.begin(), program_studies.end(),
                                                    app.study) == program_studies.end())
            program_studies.push_back(app.study);
    if (const std::string background = format_background_table(counters, program_studies);
        !background.empty())
        summary += (summary.empty() ? "" : "\n") + background;
    for (const auto& note : busy_notes(runs)) summary += "busy: " + note + '\n';
    const auto drawn = draw_figures((dir / "plots").string(), figures, notes);
    std::ofstream((dir / "summary.txt").string(), std::ios::trunc) << summary;
    std::cout << '\n' << summary;
    for (const auto& note : notes) std::cout << "note: " << note << '\n';
    std::cout << fmt::format("{} figures (PNG and SVG) in {}; summary in {}\n", drawn.size(),
                             (dir / "plots").string(), (dir / "summary.txt").string());
}

// The stages of a traced run: table and figures (trace.hpp), next to the others.
void report_trace(const fs::path& prefix, const fs::path& out, std::vector<std::string>& notes) {
    try {
        const auto events = read_trace(prefix.string());
        write_trace_report(rebuild_transfers(events), events, out.string(), 3, notes);
    } catch (const std::exception& error) {
        notes.push_back(fmt::format("trace of {}: {}", prefix.string(), error.what()));
    }
}

// A run's command and why it cannot start: sibench's benchmarks know their binary,
// a suite's runs ask the suite's build, a Google Benchmark program runs alone.
Command command_of(const PlannedRun& run, const LaunchSite& site, const SuiteBuilds& suites,
                   const std::string& csv_path) {
    if (run.kind == "gbench") return gbench_command(run, site.bin_dir, gbench_json_path(csv_path));
    return run.suite.empty() ? local_command(run, site, csv_path) : suites.command(run, site);
}

std::string missing_of(const PlannedRun& run, const LaunchSite& site, const SuiteBuilds& suites) {
    if (run.kind == "gbench") return gbench_missing_reason(run, site.bin_dir);
    if (run.kind == "app") return program_missing_reason(run, site);
    return run.suite.empty() ? missing_reason(run, site) : suites.missing_reason(run, site);
}

// --source osu=DIR replaces the studies' sources; all of them end up absolute.
void apply_sources(std::vector<PlannedRun>& planned,
                   const std::map<std::string, std::string>& sources) {
    for (const auto& [suite, source] : sources) parse_suite_kind(suite);
    for (auto& run : planned) {
        if (run.suite.empty()) continue;
        if (const auto given = sources.find(run.suite); given != sources.end())
            run.suite_source = given->second;
        if (!run.suite_source.empty())
            run.suite_source = fs::absolute(run.suite_source).lexically_normal().string();
    }
}

// What reading a run's output said, for a run whose program writes no CSV itself:
// a failure turns an exit status of 0 into `failed`; notes go to the sweep's notes
// and the first to the run's own when it has none.
void take_verdict(const std::string& failure, const std::vector<std::string>& notes,
                  RunRecord& record, std::vector<std::string>& sweep_notes) {
    for (const auto& note : notes) sweep_notes.push_back(fmt::format("{}: {}", record.id, note));
    if (record.status == "ok" && !failure.empty()) {
        record.status = "failed";
        record.note = failure;
    } else if (record.note.empty() && !notes.empty()) {
        record.note = notes.front();
    }
}

// The program studies (kind "app") of the profile a run directory was made with.
std::map<std::string, Study> program_studies_of(const std::string& dir) {
    std::map<std::string, Study> programs;
    const fs::path copy = fs::path(dir) / "profile.toml";
    if (!fs::exists(copy)) return programs;
    try {
        for (const auto& study : parse_profile_file(copy.string()).studies)
            if (study.kind == "app") programs.emplace(study.name, study);
    } catch (const ProfileError&) {
        // plots_of says so; without the profile, a program's runs have no rows.
    }
    return programs;
}

// The planned run behind a recorded run of a program study, as much as its rows need.
PlannedRun program_run_of(const Study& study, const RunRecord& record) {
    PlannedRun run;
    run.id = record.id;
    run.study = study.name;
    run.benchmark = study.benchmark;
    run.kind = study.kind;
    run.program = study.program;
    run.merit = study.merit;
    run.config = parse_config(record.config);
    run.pairs = 0;
    run.job_ranks = record.ranks;
    run.args = study.args;
    return run;
}

void unique_notes(std::vector<std::string>& notes) {
    std::sort(notes.begin(), notes.end());
    notes.erase(std::unique(notes.begin(), notes.end()), notes.end());
}

}  // namespace

std::vector<std::string> busy_notes(const std::vector<RunRecord>& runs) {
    std::vector<std::string> notes;
    for (const auto& run : runs)
        if (run.status == "ok" && busy(run.others_running))
            notes.push_back(fmt::format("{} started with {:.1f} other tasks running on {} cores: "
                                        "its numbers are suspect",
                                        run.id, run.others_running, cores()));
    return notes;
}

Collected collect_results(const std::string& dir) {
    Collected collected;
    const fs::path root(dir);
    if (is_sbatch_dir(dir))
        collected.runs = read_sbatch_status(dir);
    else if (fs::exists(root / "runs.csv"))
        collected.runs = read_runs((root / "runs.csv").string());
    const auto programs = program_studies_of(dir);
    for (auto& run : collected.runs) {
        if (run.status != "ok") continue;
        // A program study's run under Slurm left its log and its time, no CSV.
        if (const auto study = programs.find(run.study);
            study != programs.end() && !fs::exists(root / run.csv)) {
            const SuiteOutput output =
                record_program_output(program_run_of(study->second, run), run.seconds,
                                      (root / run.log).string(), (root / run.csv).string());
            take_verdict(output.failure, output.notes, run, collected.notes);
            if (run.status != "ok") continue;
        }
        auto rows = rows_of_run(dir, run, collected.notes);
        collected.rows.insert(collected.rows.end(), rows.begin(), rows.end());
    }
    unique_notes(collected.notes);
    return collected;
}

int plot_results(const std::string& dir) {
    const fs::path root(dir);
    if (!fs::is_directory(root))
        throw std::invalid_argument(fmt::format("plot: no directory {}", dir));
    std::vector<Row> rows;
    std::vector<RunRecord> runs;
    if (is_sbatch_dir(dir) || fs::exists(root / "runs.csv")) {
        Collected collected = collect_results(dir);
        for (const auto& note : collected.notes) std::cout << "note: " << note << '\n';
        write_runs((root / "runs.csv").string(), collected.runs);
        write_rows((root / "results.csv").string(), collected.rows,
                   {{"written_by", "sibench plot"}, {"date", utc_timestamp()}});
        int ok = 0, planned = 0;
        for (const auto& run : collected.runs) {
            ok += run.status == "ok";
            planned += run.status == "planned";
        }
        std::cout << fmt::format("{}: {} runs, {} ok, {} not run yet, {} rows\n", dir,
                                 collected.runs.size(), ok, planned, collected.rows.size());
        rows = std::move(collected.rows);
        runs = std::move(collected.runs);
    } else if (fs::exists(root / "results.csv")) {
        rows = read_rows((root / "results.csv").string());
    } else {
        throw std::invalid_argument(fmt::format(
            "plot: {} has neither runs.csv, manifest.csv nor results.csv (give a run directory)",
            dir));
    }
    if (rows.empty()) {
        std::cout << "no results to plot\n";
        return 1;
    }
    draw_and_summarize(root, rows, plots_of(dir), runs);
    return 0;
}

int run_sweep(const RunOptions& options) {
    const bool generated = !options.profile_text.empty();
    const std::string profile_path = generated ? options.profile : find_profile(options.profile);
    const Profile profile = generated ? parse_profile_text(options.profile_text, options.profile)
                                      : parse_profile_file(profile_path);
    auto planned = expand_matrix(profile, options.filter);
    apply_sources(planned, options.sources);
    if (planned.empty())
        throw std::invalid_argument("the selection (--only, --configs) leaves no run");
    if (options.timeout_s)
        for (auto& run : planned) run.timeout_s = *options.timeout_s;
    if (!fs::is_directory(fs::path(options.build_dir) / "bin"))
        throw std::invalid_argument(
            fmt::format("--build: {} has no bin/ (build first: make build)", options.build_dir));
    const std::string build_dir = fs::absolute(options.build_dir).lexically_normal().string();
    const LaunchSite site = find_launch_site(build_dir);
    const std::string work_root =
        fs::absolute(options.work_dir.empty() ? fs::path(options.out_dir) / "work"
                                              : fs::path(options.work_dir))
            .lexically_normal()
            .string();
    SuiteBuilds suites(work_root, site.bin_dir);

    if (options.dry_run) {
        suites.prepare(planned, true, options.rebuild);
        std::cout << fmt::format("profile {} ({}): {} runs\n", profile.name, profile_path,
                                 planned.size());
        for (std::size_t i = 0; i < planned.size(); ++i) {
            const auto& run = planned[i];
            const std::string why = missing_of(run, site, suites);
            const Command command = command_of(run, site, suites, "raw/" + run.id + ".csv");
            std::cout << fmt::format("[{}/{}] {}\n    {}{}\n", i + 1, planned.size(),
                                     run_label(run), command.display(),
                                     why.empty() ? "" : "\n    skipped: " + why);
        }
        return 0;
    }

    // The run directory: results/<profile>/<host>-<stamp>, and a `latest` link next to it.
    fs::path dir;
    const std::string host = host_name();
    if (!options.run_dir.empty()) {
        dir = options.run_dir;
    } else {
        dir = fs::path(options.out_dir) / profile.name /
              fmt::format("{}-{}", host, utc_stamp_compact());
    }
    for (const char* sub : {"logs", "raw", "plots", "counters"}) fs::create_directories(dir / sub);
    dir = fs::absolute(dir).lexically_normal();
    if (options.run_dir.empty()) {
        const fs::path latest = dir.parent_path() / "latest";
        std::error_code ec;
        fs::remove(latest, ec);
        fs::create_directory_symlink(dir.filename(), latest, ec);
    }
    if (generated)
        std::ofstream(dir / "profile.toml", std::ios::trunc) << options.profile_text;
    else
        fs::copy_file(profile_path, dir / "profile.toml", fs::copy_options::overwrite_existing);
    const std::string commit = source_commit();
    // Every benchmark records it in its CSV.
    ::setenv("SI_BENCH_COMMIT", commit.c_str(), 1);
    write_key_values((dir / "machine.txt").string(), describe_machine(commit));

    std::cout << fmt::format("sibench: profile {} ({} runs) -> {}\n", profile.name, planned.size(),
                             dir.string());
    install_interrupt_handler();
    // Before the runs, and before measuring how busy the machine is: builds are busy.
    suites.prepare(planned, false, options.rebuild);
    warn_if_busy();

    std::vector<RunRecord> records;
    Collected collected;
    int ok = 0, failed = 0, skipped = 0;
    const auto sweep_start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < planned.size(); ++i) {
        const auto& run = planned[i];
        RunRecord record;
        record.id = run.id;
        record.study = run.study;
        record.benchmark = run.benchmark;
        record.config = run.config.name();
        record.ranks = run.ranks();
        record.pairs = run.pairs;
        record.log = "logs/" + run.id + ".log";
        record.others_running = others_running();
        record.csv = "raw/" + run.id + ".csv";
        Command command = command_of(run, site, suites, (dir / record.csv).string());
        if (run.config.runtime == Runtime::simpi)
            command.env.emplace_back("SI_STATS", counters_prefix(dir.string(), run.id));
        const fs::path trace_prefix = dir / "trace" / run.id / "events";
        if (run.trace) {
            fs::create_directories(trace_prefix.parent_path());
            command.env.emplace_back("SI_TRACE", trace_prefix.string());
        }
        record.command = command.display();
        if (interrupted_by_user()) {
            // Recorded, so that runs.csv still lists the whole matrix.
            record.status = "interrupted";
            record.note = "not started: sweep interrupted";
            record.log.clear();
            record.csv.clear();
            records.push_back(record);
            continue;
        }
        std::cout << fmt::format("[{}/{}] {} ... ", i + 1, planned.size(), run_label(run))
                  << std::flush;

        if (const std::string why = missing_of(run, site, suites); !why.empty()) {
            record.status = "skipped";
            record.note = why;
            record.log.clear();
            record.csv.clear();
            ++skipped;
            std::cout << "skipped: " << why << '\n';
        } else {
            fs::remove(dir / record.csv);
            const ProcessResult result =
                run_process(command, (dir / record.log).string(), run.timeout_s);
            record.status = status_of(result);
            record.exit_status = result.exit_status;
            record.seconds = result.seconds;
            record.note = result.error;
            if (record.status == "timeout")
                record.note = fmt::format("hit the {:g} s limit", run.timeout_s);
            if (run.kind == "gbench") {
                // Its JSON becomes the raw CSV; benchmarks that skipped themselves
                // (a device this machine lacks) are noted, not failed.
                const GbenchOutput output =
                    record_gbench_output(run, gbench_json_path((dir / record.csv).string()),
                                         (dir / record.csv).string());
                take_verdict(output.failure, output.notes, record, collected.notes);
            }
            if (run.kind == "app") {
                // Any program: its wall time and the figure of merit in its output.
                const SuiteOutput output = record_program_output(
                    run, result.seconds, (dir / record.log).string(), (dir / record.csv).string());
                take_verdict(output.failure, output.notes, record, collected.notes);
            }
            if (!run.suite.empty()) {
                // A suite writes no CSV: its output is read, and may say the run failed
                // although it exited 0 (NPB's verification).
                const SuiteOutput output = record_suite_output(run, (dir / record.log).string(),
                                                               (dir / record.csv).string());
                take_verdict(output.failure, output.notes, record, collected.notes);
            }
            if (record.status == "ok") {
                ++ok;
                std::cout << fmt::format("{:.1f} s ok\n", result.seconds);
            } else {
                if (record.status != "interrupted") ++failed;
                std::string shout = record.status;
                std::transform(shout.begin(), shout.end(), shout.begin(), ::toupper);
                std::cout << fmt::format("{:.1f} s {} (exit status {}), log: {}\n", result.seconds,
                                         shout, result.exit_status, (dir / record.log).string());
                if (!record.note.empty()) std::cout << "    " << record.note << '\n';
                std::string tail = tail_file((dir / record.log).string(), 3);
                for (const auto& line : split_list(tail, '\n'))
                    std::cout << "    | " << line << '\n';
            }
        }
        records.push_back(record);
        // Rows of this run, then both CSVs rewritten: what ran so far is on disk.
        if (record.status == "ok") {
            auto rows = rows_of_run(dir.string(), record, collected.notes);
            collected.rows.insert(collected.rows.end(), rows.begin(), rows.end());
            if (run.trace) report_trace(trace_prefix, dir / "plots" / ("trace-" + run.id), collected.notes);
        }
        save(dir.string(), records, collected, profile.name);
    }
    const double minutes =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_start).count() / 60;
    const auto not_started = std::count_if(records.begin(), records.end(), [](const RunRecord& r) {
        return r.log.empty() && r.status == "interrupted";
    });
    std::cout << fmt::format(
        "\n{} runs in {:.1f} min: {} ok, {} failed, {} skipped{}\n", planned.size(), minutes, ok,
        failed, skipped,
        not_started > 0 ? fmt::format(", {} not started (interrupted)", not_started) : "");
    unique_notes(collected.notes);
    for (const auto& note : collected.notes) std::cout << "note: " << note << '\n';
    for (const auto& record : records)
        if (record.status != "ok" && record.status != "skipped" && !record.log.empty())
            std::cout << fmt::format("  {} {}: {}\n", record.status, record.id,
                                     (dir / record.log).string());

    if (interrupted_by_user()) {
        // The user wants out: no figures now, `sibench plot` draws them later.
        save(dir.string(), records, collected, profile.name);
        std::cout << fmt::format("interrupted; {} plot {} draws what was measured\n", "sibench",
                                 dir.string());
        return 130;
    }
    if (options.plot && !collected.rows.empty())
        draw_and_summarize(dir, collected.rows, profile.plots, records);
    std::cout << fmt::format("results: {}\n", (dir / "results.csv").string());
    if (options.report && !collected.rows.empty()) {
        const auto counts = write_report(dir.string(), read_published(report_data("published.csv")),
                                         read_sections(report_data("sections.toml")),
                                         (dir / "report").string());
        std::cout << fmt::format("report: {} ({} results, {} measured here)\n",
                                 (dir / "report" / "report.md").string(), counts.sections,
                                 counts.measured);
        // A few seconds: written whenever the two tools are installed.
        const std::string problem = write_report_pdf((dir / "report").string());
        std::cout << (problem.empty() ? "report: " + (dir / "report" / "report.pdf").string()
                                      : "report: no PDF: " + problem)
                  << '\n';
    }

    if (ok == 0) return 1;
    if (options.strict && failed > 0) return 1;
    if (skipped > 0 && !options.allow_missing) {
        std::cout << fmt::format(
            "sibench: {} run(s) skipped because their configuration cannot run here (see above); "
            "exit status 1 (--allow-missing accepts this)\n",
            skipped);
        return 1;
    }
    return 0;
}

}  // namespace si::harness
