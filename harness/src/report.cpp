#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <cpptoml.h>
#include <fmt/format.h>
// libfccp copies a file name with strncpy, which GCC flags once inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include "counters.hpp"
#include "derive.hpp"
#include "profile_reader.hpp"
#include "results.hpp"
#include "run.hpp"
#include "units.hpp"

namespace si::harness {

namespace fs = std::filesystem;

namespace {

using Reader8 = io::CSVReader<8, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>,
                              io::throw_on_overflow>;

std::optional<double> number_of(const std::string& text) {
    if (text.empty()) return std::nullopt;
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return value;
}

}  // namespace

std::vector<PublishedValue> read_published(const std::string& path) {
    Reader8 in(path);
    in.read_header(io::ignore_no_column, "result", "source", "line", "curve", "x", "value", "unit",
                   "what");
    std::vector<PublishedValue> values;
    PublishedValue v;
    std::string value;
    while (in.read_row(v.result, v.source, v.line, v.curve, v.x, value, v.unit, v.what)) {
        try {
            v.value = number_of(value);
        } catch (const std::exception&) {
            throw CsvError(fmt::format("{}:{}: value '{}' is not a number", path,
                                       in.get_file_line(), value));
        }
        values.push_back(v);
    }
    return values;
}

std::vector<ReportSection> read_sections(const std::string& path) {
    using profile_reading::Reader;
    const auto root = cpptoml::parse_file(path);
    const auto tables = root->get_table_array("section");
    if (!tables) throw ProfileError(fmt::format("{}: no [[section]]", path));
    std::vector<ReportSection> sections;
    for (const auto& table : *tables) {
        ReportSection s;
        const Reader reader(path, fmt::format("[[section]] {}", sections.size() + 1));
        reader.check_keys(table, {"id", "title", "figure", "study", "metric", "unit",
                                  "subtract", "relative", "also", "better", "sizes", "plots",
                                  "compare", "tolerance", "setting", "differs", "absent"});
        s.id = reader.string(table, "id").value_or("");
        if (s.id.empty()) reader.fail("id", "missing");
        s.title = reader.string(table, "title").value_or(s.id);
        s.figure = reader.string(table, "figure").value_or("");
        s.study = reader.string(table, "study").value_or("");
        s.metric = reader.string(table, "metric").value_or("");
        s.unit = reader.string(table, "unit").value_or("");
        s.subtract = reader.string(table, "subtract").value_or("");
        s.relative = reader.string(table, "relative").value_or("");
        if (!s.subtract.empty() && !s.relative.empty())
            reader.fail("relative", "subtract and relative exclude each other");
        const std::string better = reader.string(table, "better").value_or("higher");
        if (better != "higher" && better != "lower") reader.fail("better", "higher or lower");
        s.higher_is_better = better == "higher";
        s.sizes = reader.sizes(table, "sizes").value_or(std::vector<std::uint64_t>{0});
        s.plots = reader.strings(table, "plots").value_or(std::vector<std::string>{});
        s.also = reader.strings(table, "also").value_or(std::vector<std::string>{});
        s.tolerance = reader.number(table, "tolerance").value_or(s.tolerance);
        s.setting = reader.string(table, "setting").value_or("");
        s.differs = reader.string(table, "differs").value_or("");
        s.absent = reader.string(table, "absent").value_or("");
        if (const auto compare = table->get_table_array("compare")) {
            for (const auto& entry : *compare) {
                const Reader inner(path, fmt::format("[[section]] {} compare", s.id));
                inner.check_keys(entry, {"curve", "x", "config", "size"});
                Comparison c;
                c.curve = inner.string(entry, "curve").value_or("");
                c.x = inner.string(entry, "x").value_or("");
                c.config = inner.string(entry, "config").value_or("");
                c.size = inner.single_size(entry, "size").value_or(0);
                if (c.config.empty()) inner.fail("config", "missing");
                s.compare.push_back(c);
            }
        }
        sections.push_back(std::move(s));
    }
    return sections;
}

namespace {

// What the run measured, by study, configuration, size and metric.
class Measured {
  public:
    explicit Measured(const fs::path& dir)
        : index_(fs::exists(dir / "results.csv") ? read_rows((dir / "results.csv").string())
                                                  : std::vector<Row>{}),
          counters_(read_counters((dir / "counters.csv").string())) {}

    std::vector<std::string> configs(const ReportSection& s) const {
        if (!is_counter(s)) return index_.has_study(s.study) ? index_.configs(s.study)
                                                             : std::vector<std::string>{};
        std::set<std::string> seen;
        std::vector<std::string> configs;
        for (const auto& row : counters_)
            if (row.study == s.study && row.counter == counter(s) && seen.insert(row.config).second)
                configs.push_back(row.config);
        return configs;
    }

    std::optional<Spread> at(const ReportSection& s, const std::string& config,
                             std::uint64_t size) const {
        auto value = raw(s, config, size);
        const std::string& base_config = s.subtract.empty() ? s.relative : s.subtract;
        if (!value || base_config.empty()) return value;
        const auto base = raw(s, base_config, size);
        if (!base || (!s.relative.empty() && base->median == 0)) return std::nullopt;
        // Against the base's median (each round's own base is not kept).
        const auto against = [&](double v) {
            return s.subtract.empty() ? (base->median - v) / base->median * 100
                                      : v - base->median;
        };
        const double a = against(value->min), b = against(value->max);
        return Spread{against(value->median), std::min(a, b), std::max(a, b), value->rounds};
    }

  private:
    std::optional<Spread> raw(const ReportSection& s, const std::string& config,
                              std::uint64_t size) const {
        if (const auto slash = s.metric.find('/'); slash != std::string::npos) {
            const auto a = index_.value(s.study, config, index_.base_pairs(s.study), size,
                                        s.metric.substr(0, slash));
            // The divisor at the same size, or at the study's largest when only that
            // one has it (the one-sided studies' work: one for every size).
            const std::string divisor = s.metric.substr(slash + 1);
            auto b = index_.value(s.study, config, index_.base_pairs(s.study), size, divisor);
            if (!b && !index_.sizes(s.study).empty())
                b = index_.value(s.study, config, index_.base_pairs(s.study),
                                 index_.sizes(s.study).back(), divisor);
            if (!a || !b || *b == 0) return std::nullopt;
            return Spread{*a / *b, *a / *b, *a / *b, 1};
        }
        if (is_counter(s)) {
            std::uint64_t sum = 0;
            bool any = false;
            for (const auto& row : counters_)
                if (row.study == s.study && row.config == config && row.counter == counter(s)) {
                    sum += row.value;
                    any = true;
                }
            if (!any) return std::nullopt;
            const double v = static_cast<double>(sum);
            return Spread{v, v, v, 1};
        }
        if (!index_.has_study(s.study)) return std::nullopt;
        return index_.spread(s.study, config, index_.base_pairs(s.study), size, s.metric);
    }

    static bool is_counter(const ReportSection& s) { return s.metric.starts_with("counter:"); }
    static std::string counter(const ReportSection& s) { return s.metric.substr(8); }

    ResultIndex index_;
    std::vector<CounterRow> counters_;
};

std::string number(double v) {
    const double a = std::fabs(v);
    if (a >= 100) return fmt::format("{:.0f}", v);
    if (a >= 10) return fmt::format("{:.1f}", v);
    return fmt::format("{:.3g}", v);
}

std::string size_name(std::uint64_t size) { return size == 0 ? "-" : size_label(size); }

std::string cell(const std::optional<Spread>& spread) {
    if (!spread || std::isnan(spread->median)) return "-";
    if (spread->rounds <= 1 || spread->min == spread->max) return number(spread->median);
    return fmt::format("{} [{}..{}]", number(spread->median), number(spread->min),
                       number(spread->max));
}

// Whether `measured` reproduces `published` within the section's tolerance.
bool within(const ReportSection& s, double measured, double published) {
    if (s.unit == "%") return std::fabs(measured - published) <= s.tolerance * 100;
    return std::fabs(measured - published) <= s.tolerance * std::fabs(published);
}

// Configurations by sizes, median [min..max].
void write_table(std::ostream& out, const ReportSection& s, const std::vector<std::string>& configs,
                 const Measured& measured) {
    out << "| config |";
    for (auto size : s.sizes) out << ' ' << size_name(size) << " |";
    out << "\n|---|";
    for (std::size_t i = 0; i < s.sizes.size(); ++i) out << "---|";
    out << '\n';
    for (const auto& config : configs) {
        out << "| " << config << " |";
        for (auto size : s.sizes) out << ' ' << cell(measured.at(s, config, size)) << " |";
        out << '\n';
    }
}

struct SectionResult {
    bool measured = false;
    std::optional<bool> reproduced;  // no comparison: unknown
    std::string best_config;         // at the last size with values
    std::optional<double> best_value;
    std::uint64_t best_size = 0;
};

SectionResult write_section(std::ostream& out, const ReportSection& s,
                            const std::vector<PublishedValue>& published, const Measured& measured,
                            const fs::path& run_dir, const fs::path& out_dir) {
    SectionResult result;
    out << fmt::format("\n## {} ({})\n\n", s.title, s.figure);
    std::vector<const PublishedValue*> rows, settings;
    for (const auto& p : published)
        if (p.result == s.id) (p.unit == "setting" ? settings : rows).push_back(&p);
    out << "**Published.**";
    if (rows.empty()) out << " No number for this result in the published-values file.\n";
    out << "\n\n";
    if (!rows.empty()) {
        out << "| curve | x | value | what | where |\n|---|---|---|---|---|\n";
        for (const auto* p : rows)
            out << fmt::format("| {} | {} | {} | {} | {} line {} |\n", p->curve, p->x,
                               p->value ? number(*p->value) + " " + p->unit : p->unit, p->what,
                               p->source, p->line);
        out << '\n';
    }
    for (const auto* p : settings)
        out << fmt::format("Published setting ({} line {}): {}\n\n", p->source, p->line, p->what);
    if (!s.setting.empty()) out << "Setting here: " << s.setting << "\n\n";

    const auto configs = measured.configs(s);
    if (configs.empty()) {
        out << "**Measured here:** nothing: the run has no "
            << (s.study.empty() ? std::string("study for this result")
                                : fmt::format("`{}` study", s.study))
            << (s.absent.empty() ? "." : ". " + s.absent) << "\n";
        return result;
    }
    result.measured = true;
    out << fmt::format("**Measured here** (`{}` of study `{}`, {}; median [min..max] over rounds):\n\n",
                       s.metric, s.study, s.unit.empty() ? "no unit" : s.unit);
    write_table(out, s, configs, measured);
    for (const auto& metric : s.also) {
        ReportSection other = s;
        other.metric = metric;
        other.subtract.clear();
        other.relative.clear();
        // metric@study: of another study of the run.
        if (const auto at = metric.find('@'); at != std::string::npos) {
            other.metric = metric.substr(0, at);
            other.study = metric.substr(at + 1);
            out << fmt::format("\nAlso measured: `{}` of study `{}`.\n\n", other.metric,
                               other.study);
        } else {
            out << fmt::format("\nAlso measured: `{}` of the same runs.\n\n", metric);
        }
        const auto other_configs = measured.configs(other);
        if (other_configs.empty())
            out << "(not in this run)\n";
        else
            write_table(out, other, other_configs, measured);
    }
    // Which design wins: the best median at the largest size any configuration has.
    for (auto it = s.sizes.rbegin(); it != s.sizes.rend() && !result.best_value; ++it)
        for (const auto& config : configs)
            if (const auto v = measured.at(s, config, *it); v && !std::isnan(v->median))
                if (!result.best_value || (s.higher_is_better ? v->median > *result.best_value
                                                              : v->median < *result.best_value)) {
                    result.best_value = v->median;
                    result.best_config = config;
                    result.best_size = *it;
                }

    if (!s.compare.empty()) {
        out << "\n**Side by side.**\n\n| published | value | here | value | ratio | within tolerance |\n"
               "|---|---|---|---|---|---|\n";
        bool all = true, any = false;
        for (const auto& c : s.compare) {
            const PublishedValue* p = nullptr;
            for (const auto* row : rows)
                if (row->curve == c.curve && row->x == c.x && row->value) p = row;
            const auto v = measured.at(s, c.config, c.size);
            const bool have = p && v && !std::isnan(v->median);
            const bool ok = have && within(s, v->median, *p->value);
            if (have) any = true;
            all = all && ok;
            out << fmt::format("| {} {} | {} | {} {} | {} | {} | {} |\n", c.curve, c.x,
                               p ? number(*p->value) + " " + p->unit : "-", c.config,
                               size_name(c.size), v ? number(v->median) : "-",
                               have && *p->value != 0 ? number(v->median / *p->value) + "x" : "-",
                               have ? (ok ? "yes" : "no") : "-");
        }
        if (any) result.reproduced = all;
    }
    out << "\n**Verdict.** ";
    if (!result.reproduced)
        out << "No published number to hold the measurement against; the measured table and the "
               "published claim above stand side by side.";
    else if (*result.reproduced)
        out << fmt::format("Reproduces: every compared value within {} of the published one.",
                           s.unit == "%" ? number(s.tolerance * 100) + " points"
                                         : number(s.tolerance * 100) + " %");
    else
        out << "Differs.";
    if (!s.differs.empty() && !(result.reproduced && *result.reproduced)) out << ' ' << s.differs;
    out << '\n';

    // A report inside its run directory links the run's figures; one elsewhere
    // takes copies, so that it stands alone.
    const bool inside = fs::weakly_canonical(out_dir).parent_path() == fs::weakly_canonical(run_dir);
    for (const auto& stem : s.plots) {
        if (!fs::exists(run_dir / "plots" / (stem + ".png"))) continue;
        std::string folder = "../plots";
        if (!inside) {
            folder = "figures";
            fs::create_directories(out_dir / folder);
            for (const char* ext : {".png", ".svg"})
                if (fs::exists(run_dir / "plots" / (stem + ext)))
                    fs::copy_file(run_dir / "plots" / (stem + ext), out_dir / folder / (stem + ext),
                                  fs::copy_options::overwrite_existing);
        }
        out << fmt::format("\n![{0}]({1}/{0}.png) ([SVG]({1}/{0}.svg))\n", stem, folder);
    }
    return result;
}

std::string first_lines(const fs::path& path, int count) {
    std::ifstream in(path);
    std::string line, text;
    for (int i = 0; i < count && std::getline(in, line); ++i) text += "    " + line + '\n';
    return text;
}

}  // namespace

std::string report_data(const std::string& name) {
    return (fs::path(SI_HARNESS_SOURCE_DIR) / "harness" / "report" / name).string();
}

ReportCounts write_report(const std::string& run_dir, const std::vector<PublishedValue>& published,
                          const std::vector<ReportSection>& sections, const std::string& out_dir) {
    const fs::path dir(run_dir), out(out_dir);
    fs::create_directories(out);
    const Measured measured(dir);
    std::ostringstream body;
    ReportCounts counts;
    std::vector<std::pair<const ReportSection*, SectionResult>> results;
    for (const auto& s : sections) {
        results.emplace_back(&s, write_section(body, s, published, measured, dir, out));
        ++counts.sections;
        if (results.back().second.measured) ++counts.measured;
        if (results.back().second.reproduced.value_or(false)) ++counts.reproduced;
    }

    std::ofstream md(out / "report.md", std::ios::trunc);
    md << "# The thesis and the papers, reproduced by this suite\n\n";
    md << fmt::format("Generated by `sibench report` from `{}`: {} results, {} measured here, {} "
                      "reproduced within their tolerance.\n\n",
                      run_dir, counts.sections, counts.measured, counts.reproduced);
    if (!fs::exists(dir / "results.csv"))
        md << "**The run directory has no results.csv**: nothing below is measured. An sbatch "
              "directory is collected by `sibench plot DIR` first.\n\n";
    md << "Machine of the run:\n\n" << first_lines(dir / "machine.txt", 16) << '\n';
    const auto notes = busy_notes(fs::exists(dir / "runs.csv")
                                      ? read_runs((dir / "runs.csv").string())
                                      : std::vector<RunRecord>{});
    for (const auto& note : notes) md << "busy: " << note << "  \n";
    md << "\n## Which design wins where\n\n"
          "| result | measured | best here | at | reproduces |\n|---|---|---|---|---|\n";
    for (const auto& [s, r] : results)
        md << fmt::format("| {} ({}) | {} | {} | {} | {} |\n", s->title, s->figure,
                          r.measured ? "yes" : "no",
                          r.best_value ? fmt::format("{} ({} {})", r.best_config,
                                                     number(*r.best_value), s->unit)
                                       : "-",
                          r.best_value ? size_name(r.best_size) : "-",
                          !r.reproduced ? "-" : *r.reproduced ? "yes" : "no");
    md << body.str();
    return counts;
}

}  // namespace si::harness
