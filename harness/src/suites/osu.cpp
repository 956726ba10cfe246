// The OSU micro-benchmarks (OMB 5.x): configured out of tree (the source stays as
// it is), built with `make -k` so that what cannot link against a library (this
// runtime lacks the nonblocking collectives) does not stop the rest, and their
// tables ("# Size   Latency (us)") read into rows.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "process.hpp"
#include "suites/build_steps.hpp"
#include "suites/output_text.hpp"
#include "suites/suite.hpp"
#include "units.hpp"

namespace si::harness {

namespace fs = std::filesystem;

namespace {

// OMB's timed and warm-up iterations when the command line does not set them
// (-i, -x): small messages up to 8 KiB, large above (osu_pt2pt.h, osu_coll.c and
// osu_mbw_mr.c of OMB 5.3). Blocking collectives print theirs with -f, which
// sibench passes; these cover the rest.
struct OsuCounts {
    long iterations_small, iterations_large, warmup_small, warmup_large;
};
constexpr std::uint64_t kOsuLargeAbove = 8192;

std::optional<OsuCounts> default_counts(const std::string& benchmark) {
    if (benchmark == "osu_latency" || benchmark == "osu_multi_lat" || benchmark == "osu_latency_mt")
        return OsuCounts{10000, 1000, 100, 10};
    if (benchmark == "osu_bw" || benchmark == "osu_bibw" || benchmark == "osu_mbw_mr")
        return OsuCounts{100, 20, 10, 2};
    return std::nullopt;
}

// The value after `flag` in the study's options, if any.
std::optional<long> option_value(const std::vector<std::string>& args, const std::string& flag) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == flag) {
            const auto number = to_number(args[i + 1]);
            if (number) return static_cast<long>(*number);
        }
    return std::nullopt;
}

// An OSU column header as (metric, unit); "Size" and "Iterations" are not metrics
// and come back with an empty metric. Latencies and rates are means: over the
// timed iterations, and for collectives over the ranks too (min and max besides).
std::pair<std::string, std::string> osu_metric(const std::string& header) {
    static const std::map<std::string, std::pair<std::string, std::string>> known = {
        {"Latency (us)", {"latency_mean", "us"}},
        {"Avg Latency(us)", {"latency_mean", "us"}},
        {"Min Latency(us)", {"latency_min", "us"}},
        {"Max Latency(us)", {"latency_max", "us"}},
        {"Bandwidth (MB/s)", {"bandwidth_mean", "MB/s"}},
        {"MB/s", {"bandwidth_mean", "MB/s"}},
        {"Messages/s", {"message_rate_mean", "msg/s"}},
    };
    if (const auto it = known.find(header); it != known.end()) return it->second;
    // Others name their unit in parentheses: "Pure Comm.(us)", "Overlap(%)".
    const auto open = header.rfind('(');
    if (open != std::string::npos && header.back() == ')') {
        const std::string unit = header.substr(open + 1, header.size() - open - 2);
        return {snake_name(header.substr(0, open)) + "_mean", unit};
    }
    return {snake_name(header), ""};
}

// The names of a table of `count` numbers per row: those of the last comment
// line, else of the last line of words before the table. OMB 7.4's
// osu_get_mbw prints a third number its header does not name: a header that
// starts with Size and names fewer columns names the first ones.
std::vector<std::string> table_columns(const std::string& header, const std::string& bare_header,
                                       std::size_t count) {
    const auto names = [](const std::string& line) {
        std::vector<std::string> columns = split_columns(line);
        std::erase(columns, std::string("Validation"));
        return columns;
    };
    std::vector<std::string> named = names(header);
    if (named.size() == count) return named;
    if (std::vector<std::string> bare = names(bare_header); bare.size() == count) return bare;
    if (!named.empty() && named.size() < count && named.front() == "Size") return named;
    return {};
}

}  // namespace

SuiteOutput parse_osu_output(const std::string& text, const RowContext& context) {
    SuiteOutput output;
    const auto counts = default_counts(context.benchmark);
    const auto iterations_given = option_value(context.args, "-i");
    const auto warmup_given = option_value(context.args, "-x");
    std::string header;                // the last comment line
    std::string bare_header;           // the last line of words only (OMB 5's osu_ibarrier: no '#')
    std::vector<std::string> columns;  // of the table being read
    for (const auto& line : split_lines(text)) {
        const auto words = split_words(line);
        if (words.empty()) {
            columns.clear();
            continue;
        }
        if (words.front().starts_with("#")) {
            header = line.substr(line.find('#') + 1);
            columns.clear();
            continue;
        }
        // OMB 7's -c adds a last column, Validation, of words (Pass/Fail;
        // one-sided: passed/failed) after the numbers: a failed size fails the
        // run. Its one-sided tests also print a report of dashed lines and
        // sentences after the table, which are no rows.
        std::vector<std::string> cells = words;
        std::string verdict;
        const bool validated = header.find("Validation") != std::string::npos;
        if (validated && cells.size() >= 2 && !to_number(cells.back())) {
            verdict = cells.back();
            std::transform(verdict.begin(), verdict.end(), verdict.begin(),
                           [](unsigned char c) { return std::tolower(c); });
            cells.pop_back();
        }
        std::vector<double> values;
        for (const auto& word : cells) {
            const auto number = to_number(word);
            if (!number) break;
            values.push_back(*number);
        }
        if (values.size() != cells.size()) {  // a launcher's or runtime's message, or a header
            if (values.empty()) bare_header = line;
            continue;
        }
        if (verdict.starts_with("fail") && output.failure.empty())
            output.failure = fmt::format("{}: OSU's validation failed at size {}",
                                         context.benchmark, cells.front());
        if (columns.empty()) {
            columns = table_columns(header, bare_header, values.size());
            if (columns.empty()) {
                output.notes.push_back(
                    fmt::format("{}: a table with {} columns under the header '{}' was not read",
                                context.benchmark, values.size(), header));
                continue;
            }
            if (columns.size() < values.size())
                output.notes.push_back(fmt::format(
                    "{}: {} of the table's {} columns have no name under '{}' and were not read",
                    context.benchmark, values.size() - columns.size(), values.size(), header));
        }
        if (values.size() < columns.size()) continue;  // numbers that are not a row of it
        std::uint64_t size = 0;
        std::optional<long> iterations;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            if (columns[i] == "Size") size = static_cast<std::uint64_t>(values[i]);
            if (columns[i] == "Iterations") iterations = static_cast<long>(values[i]);
        }
        const bool large = size > kOsuLargeAbove;
        long warmup = 0;
        if (!iterations) iterations = iterations_given;
        if (!iterations && counts)
            iterations = large ? counts->iterations_large : counts->iterations_small;
        if (warmup_given)
            warmup = *warmup_given;
        else if (counts)
            warmup = large ? counts->warmup_large : counts->warmup_small;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const auto [metric, unit] = osu_metric(columns[i]);
            if (columns[i] == "Size" || columns[i] == "Iterations" || metric.empty()) continue;
            Row row = suite_row(context, "osu");
            row.msg_size = size;
            row.metric = metric;
            row.value = values[i];
            row.unit = unit;
            row.iterations = iterations.value_or(0);
            row.warmup = warmup;
            output.rows.push_back(std::move(row));
        }
    }
    if (output.rows.empty() && output.failure.empty())
        output.failure = "no OSU result table in the output";
    return output;
}

namespace {

// `make` itself says what a directory of an automake build makes ($(PROGRAMS)) and
// where it recurses ($(SUBDIRS)): no reading of Makefiles here.
std::vector<std::string> make_variable(const fs::path& dir, const std::string& variable) {
    const std::string rule = fmt::format("sibench-print: ; @echo $({})", variable);
    return split_words(capture_output({"make", "-s", "--no-print-directory", "-C", dir.string(),
                                       "--eval=" + rule, "sibench-print"}));
}

// Every program of the build tree under `dir`, with the directory it is made in.
void list_programs(const fs::path& dir, std::vector<std::pair<std::string, fs::path>>& programs) {
    for (const auto& name : make_variable(dir, "PROGRAMS")) programs.emplace_back(name, dir);
    for (const auto& sub : make_variable(dir, "SUBDIRS"))
        if (sub != "." && fs::exists(dir / sub / "Makefile")) list_programs(dir / sub, programs);
}

class OsuDriver final : public SuiteDriver {
  public:
    std::string check_benchmark(const std::string& benchmark) const override {
        if (!benchmark.starts_with("osu_"))
            return "OSU benchmarks are named like their programs: osu_latency, osu_allreduce";
        return "";
    }

    std::string target_of(const std::string&, const std::string& benchmark, int) const override {
        return benchmark;
    }

    std::vector<BuiltTarget> build(const BuildRequest& request) const override {
        const Toolchain& tools = request.toolchain;
        const std::vector<std::string> all = {"(every OSU program)"};
        const auto& wanted = request.targets.empty() ? all : request.targets;
        if (tools.cc.empty()) return skip_targets(wanted, tools.cc_missing + " not found");
        if (tools.cxx.empty()) return skip_targets(wanted, tools.cxx_missing + " not found");
        const fs::path work(request.work_dir);
        const std::string configure_log = (work / "configure.log").string();
        const std::string make_log = (work / "make.log").string();
        if (!fs::exists(work / "config.status")) fs::remove(configure_log);
        fs::remove(make_log);
        if (!fs::exists(work / "config.status") &&
            !run_build_step({(fs::path(request.source) / "configure").string(), "CC=" + tools.cc,
                             "CXX=" + tools.cxx},
                            {}, work.string(), configure_log)) {
            const std::string why = first_error_about(configure_log, "error");
            std::vector<BuiltTarget> failed;
            for (const auto& target : wanted)
                failed.push_back({target, "failed", "",
                                  "configure failed" + (why.empty() ? "" : ": " + why),
                                  configure_log});
            return failed;
        }
        // -k: a benchmark that does not link (an MPI call the library lacks) must
        // not keep the others from being built.
        run_build_step({"make", "-k", make_jobs()}, {}, work.string(), make_log);

        std::vector<std::pair<std::string, fs::path>> programs;
        list_programs(work, programs);
        std::vector<BuiltTarget> report;
        const auto outcome = [&](const std::string& name, const fs::path& dir) {
            const fs::path binary = dir / name;
            if (fs::exists(binary))
                return BuiltTarget{name, "built", binary.string(), "", make_log};
            std::string why = first_error_about(make_log, name + ".");
            return BuiltTarget{name, "failed", "", why.empty() ? "did not build" : why, make_log};
        };
        if (request.targets.empty()) {
            for (const auto& [name, dir] : programs) report.push_back(outcome(name, dir));
            return report;
        }
        for (const auto& target : request.targets) {
            const auto it = std::find_if(programs.begin(), programs.end(),
                                         [&](const auto& p) { return p.first == target; });
            if (it != programs.end()) {
                report.push_back(outcome(it->first, it->second));
                continue;
            }
            std::string names;
            for (const auto& p : programs) names += (names.empty() ? "" : ", ") + p.first;
            report.push_back({target, "failed", "",
                              fmt::format("no such OSU program (this build has: {})", names),
                              make_log});
        }
        return report;
    }

    std::vector<std::string> program(const std::string& binary, const std::string&, int,
                                     const std::vector<std::string>& args) const override {
        std::vector<std::string> argv = {binary};
        // Collectives print min, max and the iteration count only with -f
        // (OMB 5: .../collective/osu_x; OMB 7: .../collective/blocking/osu_x).
        const fs::path path(binary);
        const bool collective =
            std::find(path.begin(), path.end(), fs::path("collective")) != path.end();
        if (collective && std::find(args.begin(), args.end(), "-f") == args.end())
            argv.push_back("-f");
        argv.insert(argv.end(), args.begin(), args.end());
        return argv;
    }

    SuiteOutput parse(const std::string& output, const RowContext& context) const override {
        return parse_osu_output(output, context);
    }
};

}  // namespace

const SuiteDriver& osu_driver() {
    static const OsuDriver driver;
    return driver;
}

}  // namespace si::harness
