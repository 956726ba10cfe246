#include "plot.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "process.hpp"
#include "units.hpp"

namespace si::harness {

namespace {

// gnuplot single-quoted strings take everything literally except '' for a quote.
std::string gp_string(std::string_view text) {
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    return quoted + "'";
}

// Data-file strings are double-quoted; our labels hold no double quotes, but a
// user's study name could not break the file either way.
std::string dat_string(std::string_view text) {
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? '\'' : c;
    return quoted + "\"";
}

void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
}

}  // namespace

std::string figure_data(const Figure& figure) {
    std::string text = fmt::format("# {}\n", figure.title);
    if (figure.bars) {
        text += "# config value [min max]\n";
        for (const auto& series : figure.series) {
            if (series.points.empty()) continue;
            const Point& point = series.points.front();
            text += fmt::format("{} {}", dat_string(series.label), point.y);
            if (point.low && point.high) text += fmt::format(" {} {}", *point.low, *point.high);
            text += '\n';
        }
        return text;
    }
    text += fmt::format("# {} | {}; one block per configuration (gnuplot index 0, 1, ...)\n",
                        figure.xlabel, figure.ylabel);
    bool first = true;
    for (const auto& series : figure.series) {
        if (!first) text += "\n\n";  // two blank lines: the next gnuplot index
        first = false;
        text += fmt::format("# config: {}\n", series.label);
        for (const auto& point : series.points) {
            text += fmt::format("{} {}", point.x, point.y);
            if (point.low && point.high) text += fmt::format(" {} {}", *point.low, *point.high);
            text += '\n';
        }
    }
    return text;
}

std::string figure_script(const Figure& figure) {
    const std::string data = gp_string(figure.name + ".dat");
    std::string s = fmt::format("# Draws {0}.png and {0}.svg from {0}.dat (written by sibench).\n",
                                figure.name);
    // noenhanced: configuration names hold '-' and study names '_', which enhanced
    // text would turn into sub- and superscripts.
    s += fmt::format("set terminal pngcairo size 960,600 noenhanced font 'sans,11'\n");
    s += fmt::format("set output {}\n", gp_string(figure.name + ".png"));
    s += fmt::format("set title {}\n", gp_string(figure.title));
    s += fmt::format("set xlabel {}\nset ylabel {}\n", gp_string(figure.xlabel),
                     gp_string(figure.ylabel));
    s += "set grid\nset key outside right top\n";
    if (figure.log_y) s += "set logscale y\n";
    if (figure.bars) {
        s += "set style fill solid 0.6 border -1\nset boxwidth 0.6\nset xtics rotate by -30\n";
        s += "set xzeroaxis\nset yrange [*:*]\n";
        const bool spread = std::any_of(
            figure.series.begin(), figure.series.end(),
            [](const Series& x) { return !x.points.empty() && x.points.front().low.has_value(); });
        // Bars without a spread have no columns 3 and 4; gnuplot skips them there.
        s += fmt::format(
            "plot {} using 0:2:xtic(1) with boxes notitle, \\\n"
            "     '' using 0:2:(sprintf({}, $2)) with labels offset 0,1 notitle{}\n",
            data, gp_string(figure.bar_format),
            spread ? ", \\\n     '' using 0:2:3:4 with yerrorbars lc rgb 'black' pt 0 "
                     "title 'min..max over rounds'"
                   : "");
    } else {
        if (figure.x_is_size || figure.x_is_count) {
            std::set<double> xs;
            for (const auto& series : figure.series)
                for (const auto& point : series.points) xs.insert(point.x);
            s += "set logscale x 2\nset xtics (";
            bool first = true;
            // Labels do not fit above a dozen (OSU's 23 sizes): every step-th then.
            const std::size_t step = (xs.size() + 11) / 12;
            std::size_t at = 0;
            for (double x : xs) {
                if (at++ % step != 0) continue;
                const std::string label = figure.x_is_size
                                              ? size_label(static_cast<std::uint64_t>(x))
                                              : fmt::format("{}", x);
                s += fmt::format("{}{} {}", first ? "" : ", ", gp_string(label), x);
                first = false;
            }
            s += ")\n";
        }
        std::string plot = "plot ";
        int index = 0;
        for (const auto& series : figure.series) {
            if (index != 0) plot += ", \\\n     ";
            const bool spread = !series.points.empty() && series.points.front().low.has_value();
            plot += fmt::format("{} index {} using {} lw 2 pt 7 title {}",
                                index == 0 ? data : std::string("''"), index,
                                spread ? "1:2:3:4 with yerrorlines" : "1:2 with linespoints",
                                gp_string(series.label));
            ++index;
        }
        if (figure.reference_y)
            plot += fmt::format(", \\\n     {} with lines dt 2 lw 2 lc rgb 'gray40' title {}",
                                *figure.reference_y, gp_string(figure.reference_label));
        s += plot + '\n';
    }
    s += fmt::format(
        "set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'\n");
    s += fmt::format("set output {}\nreplot\nunset output\n", gp_string(figure.name + ".svg"));
    return s;
}

namespace {

Figure make_figure(std::string name, std::string title, std::string xlabel, std::string ylabel,
                   std::vector<Series> series) {
    Figure figure;
    figure.name = std::move(name);
    figure.title = std::move(title);
    figure.xlabel = std::move(xlabel);
    figure.ylabel = std::move(ylabel);
    figure.series = std::move(series);
    return figure;
}

}  // namespace

Figure size_figure(std::string name, std::string title, std::string ylabel,
                   std::vector<Series> series, bool log_y) {
    for (auto& one : series)
        std::erase_if(one.points, [](const Point& point) { return point.x <= 0; });
    Figure figure = make_figure(std::move(name), std::move(title), "message size",
                                std::move(ylabel), std::move(series));
    figure.x_is_size = true;
    figure.log_y = log_y;
    return figure;
}

std::vector<Figure> thesis_figures(const ResultIndex& index, const PlotSpec& plots,
                                   std::vector<std::string>& notes) {
    std::vector<Figure> figures;
    const auto missing = [&](const std::string& figure, const std::string& study) {
        notes.push_back(fmt::format("{}: not drawn, no results of study '{}'", figure, study));
    };
    const auto pairs_note = [&](const std::string& study) {
        const int pairs = index.base_pairs(study);
        return pairs == 1 ? std::string("1 pair") : fmt::format("{} pairs", pairs);
    };

    if (index.has_study(plots.overlap)) {
        figures.push_back(size_figure(
            "overlap", fmt::format("Overlap ({}, {})", plots.overlap, pairs_note(plots.overlap)),
            "overlap (%), median, min..max over rounds",
            spread_vs_size(index, plots.overlap, "overlap"), false));
    } else {
        missing("overlap", plots.overlap);
    }

    if (index.has_study(plots.latency)) {
        figures.push_back(size_figure(
            "latency", fmt::format("Latency ({}, {})", plots.latency, pairs_note(plots.latency)),
            "T_lat (us), median", metric_vs_size(index, plots.latency, "latency_median"), true));
        auto overhead = overhead_vs_size(index, plots.latency);
        if (overhead.empty()) {
            notes.push_back("latency-overhead: not drawn, no simpi-none run to measure against");
        } else {
            Figure figure =
                size_figure("latency-overhead", "Latency overhead relative to simpi-none",
                            "T_lat(config) - T_lat(simpi-none) (us)", std::move(overhead), false);
            figure.reference_y = 0.0;
            figure.reference_label = "simpi-none";
            figures.push_back(std::move(figure));
        }
    } else {
        missing("latency, latency-overhead", plots.latency);
    }

    if (index.has_study(plots.progression)) {
        const auto available = index.sizes(plots.progression);
        for (auto size : plots.progression_sizes) {
            const std::string name = "progression-" + format_size(size);
            if (std::find(available.begin(), available.end(), size) == available.end()) {
                notes.push_back(fmt::format("{}: not drawn, study '{}' has no size {}", name,
                                            plots.progression, size_label(size)));
                continue;
            }
            auto curves = progression_curves(index, plots.progression, size);
            Figure figure = make_figure(
                name,
                fmt::format("Progression at {} ({})", size_label(size),
                            pairs_note(plots.progression)),
                curves.rescaled ? "T_syn / T_lat(simpi-none)" : "T_syn / T_lat (own run)",
                "arrival time (us), median", std::move(curves.series));
            if (curves.baseline_latency) {
                figure.reference_y = curves.baseline_latency;
                figure.reference_label = "T_lat(simpi-none)";
            }
            figures.push_back(std::move(figure));
        }
    } else {
        missing("progression", plots.progression);
    }

    if (index.has_study(plots.scalability)) {
        for (auto size : plots.scalability_sizes) {
            auto series = overlap_vs_pairs(index, plots.scalability, size);
            const std::string name = "scalability-" + format_size(size);
            if (series.empty()) {
                notes.push_back(fmt::format("{}: not drawn, study '{}' has no overlap at {}", name,
                                            plots.scalability, size_label(size)));
                continue;
            }
            figures.push_back(
                make_figure(name, fmt::format("Scalability: overlap at {}", size_label(size)),
                            "pairs (ranks / 2)", "overlap (%), median", std::move(series)));
        }
    } else {
        missing("scalability", plots.scalability);
    }

    if (index.has_study(plots.memory)) {
        std::vector<Series> bars;
        for (const auto& [config, kib] : memory_footprint(index, plots.memory))
            bars.push_back({config, {{0, kib}}});
        if (bars.empty()) {
            notes.push_back("memory: not drawn, no simpi-none run to measure against");
        } else {
            Figure figure =
                make_figure("memory",
                            fmt::format("Memory footprint relative to simpi-none ({})",
                                        pairs_note(plots.memory)),
                            "configuration", "VmRSS after - simpi-none's (KiB per rank, mean)",
                            std::move(bars));
            figure.bars = true;
            figures.push_back(std::move(figure));
        }
    } else {
        missing("memory", plots.memory);
    }

    // Ping-pong is not a thesis figure but the README's first comparison: log-log,
    // with the min..max over the rounds when the study ran in several. The
    // multithreaded latency study is drawn the same way.
    for (const std::string& study : plots.pingpong_like()) {
        if (!index.has_study(study)) continue;
        const int rounds = index.rounds(study);
        const std::string over =
            rounds > 1 ? fmt::format(", median of {} rounds, min..max", rounds) : ", median";
        const auto metrics = index.metrics(study);
        for (const auto& m : pingpong_measurements()) {
            const std::string metric = m.name + "_median";
            if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) continue;
            const bool threads = study == plots.latency_threads;
            figures.push_back(size_figure(
                (threads ? "latency-threads-" : "pingpong-") + m.name,
                fmt::format("{} {} (study {})", threads ? "Threads taking turns:" : "Ping-pong",
                            m.words, study),
                fmt::format("{} ({}){}", m.words, m.unit, over),
                metric_vs_size(index, study, metric), true));
        }
    }

    // Strided messages (microbench/p2p/dtype): a figure per layout, so that each
    // library's cost of a block size reads against the contiguous figure.
    if (index.has_study(plots.dtype)) {
        const int rounds = index.rounds(plots.dtype);
        const std::string over =
            rounds > 1 ? fmt::format(", median of {} rounds, min..max", rounds) : ", median";
        for (const std::string& metric : index.metrics(plots.dtype)) {
            constexpr std::string_view prefix = "latency_", suffix = "_median";
            if (!metric.starts_with(prefix) || !metric.ends_with(suffix)) continue;
            const std::string layout = metric.substr(
                prefix.size(), metric.size() - prefix.size() - suffix.size());
            figures.push_back(size_figure(
                "dtype-" + layout,
                fmt::format("Strided ping-pong: {} (study {})", layout, plots.dtype),
                "one-way latency (us)" + over, metric_vs_size(index, plots.dtype, metric), true));
        }
    }
    return figures;
}

bool run_gnuplot(const std::string& dir, const std::string& script,
                 std::vector<std::string>& notes) {
    const std::string gnuplot = find_program("gnuplot");
    if (gnuplot.empty()) {
        notes.push_back(fmt::format(
            "gnuplot not found: {} written, no image (apt-get install gnuplot-nox)", script));
        return false;
    }
    Command command{{gnuplot, script}, {}};
    const auto log = (std::filesystem::path(dir) / "gnuplot.log").string();
    const auto result = run_process(command, log, 60, dir);
    if (result.exit_status == 0) return true;
    notes.push_back(
        fmt::format("{}: gnuplot failed (exit {}), see {}", script, result.exit_status, log));
    return false;
}

std::vector<std::string> draw_figures(const std::string& dir, const std::vector<Figure>& figures,
                                      std::vector<std::string>& notes) {
    namespace fs = std::filesystem;
    fs::create_directories(dir);
    std::vector<std::string> drawn;
    for (const auto& figure : figures) {
        const bool empty = std::all_of(figure.series.begin(), figure.series.end(),
                                       [](const Series& s) { return s.points.empty(); });
        if (empty) {
            notes.push_back(fmt::format("{}: not drawn, no data points", figure.name));
            continue;
        }
        // log scales cannot show values <= 0; drop the scale rather than the figure.
        Figure copy = figure;
        if (copy.log_y)
            for (const auto& series : copy.series)
                for (const auto& point : series.points)
                    if (point.y <= 0) copy.log_y = false;
        write_file(fs::path(dir) / (copy.name + ".dat"), figure_data(copy));
        write_file(fs::path(dir) / (copy.name + ".gp"), figure_script(copy));
        if (run_gnuplot(dir, copy.name + ".gp", notes))
            drawn.push_back((fs::path(dir) / (copy.name + ".png")).string());
    }
    return drawn;
}

}  // namespace si::harness
