#include "trace.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
// GCC 12 sees a possible truncation in libfccp's error path once it inlines it here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include "plot.hpp"

namespace si::harness {

namespace fs = std::filesystem;

std::vector<TraceEvent> read_trace(const std::string& prefix) {
    const fs::path base(prefix);
    const fs::path dir = base.has_parent_path() ? base.parent_path() : fs::path(".");
    const std::string stem = base.filename().string() + ".";
    std::vector<TraceEvent> events;
    int files = 0;
    if (fs::is_directory(dir))
        for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind(stem, 0) != 0) continue;
            const std::string process = name.substr(stem.size());
            if (process.rfind("rank", 0) != 0 && process.rfind("helper", 0) != 0) continue;
            ++files;
            io::CSVReader<7> in(entry.path().string());
            in.read_header(io::ignore_no_column, "t_ns", "process", "thread", "event", "peer", "id",
                           "value");
            TraceEvent event;
            try {
                while (in.read_row(event.t_ns, event.process, event.thread, event.event, event.peer,
                                   event.id, event.value))
                    events.push_back(event);
            } catch (const io::error::base& error) {
                throw std::runtime_error(
                    fmt::format("{}: {}", entry.path().string(), error.what()));
            }
        }
    if (files == 0)
        throw std::runtime_error(
            fmt::format("no trace files {}rank<N> or {}helper<N> (did the run set SI_TRACE={}?)",
                        prefix + ".", prefix + ".", prefix));
    std::stable_sort(events.begin(), events.end(),
                     [](const TraceEvent& a, const TraceEvent& b) { return a.t_ns < b.t_ns; });
    return events;
}

namespace {

int rank_of(const std::string& process) {
    return process.rfind("rank", 0) == 0 ? std::stoi(process.substr(4)) : -1;
}

// Events by (process or "*", event name), each list in time order.
class EventIndex {
  public:
    explicit EventIndex(const std::vector<TraceEvent>& events) {
        for (const TraceEvent& e : events) {
            lists_[{e.process, e.event}].push_back(&e);
            lists_[{"*", e.event}].push_back(&e);
        }
    }

    // The first event of `process` named `event` in [from, until] that `accept`s.
    template <typename Accept>
    const TraceEvent* first(const std::string& process, const std::string& event,
                            std::uint64_t from, std::uint64_t until, Accept accept) const {
        const auto found = lists_.find({process, event});
        if (found == lists_.end()) return nullptr;
        const auto& list = found->second;
        auto it =
            std::lower_bound(list.begin(), list.end(), from,
                             [](const TraceEvent* e, std::uint64_t t) { return e->t_ns < t; });
        for (; it != list.end() && (*it)->t_ns <= until; ++it)
            if (accept(**it)) return *it;
        return nullptr;
    }

    // The last event of `process` named `event` before `until`.
    const TraceEvent* last_before(const std::string& process, const std::string& event,
                                  std::uint64_t until) const {
        const auto found = lists_.find({process, event});
        if (found == lists_.end()) return nullptr;
        const auto& list = found->second;
        auto it =
            std::lower_bound(list.begin(), list.end(), until,
                             [](const TraceEvent* e, std::uint64_t t) { return e->t_ns < t; });
        return it == list.begin() ? nullptr : *std::prev(it);
    }

  private:
    std::map<std::pair<std::string, std::string>, std::vector<const TraceEvent*>> lists_;
};

constexpr std::uint64_t kForever = ~std::uint64_t{0};

std::optional<std::uint64_t> time_of(const TraceEvent* event) {
    if (event == nullptr) return std::nullopt;
    return event->t_ns;
}

}  // namespace

std::vector<Transfer> rebuild_transfers(const std::vector<TraceEvent>& events) {
    const EventIndex index(events);
    std::vector<Transfer> transfers;
    for (const TraceEvent& rts : events) {
        if (rts.event != "rts_sent") continue;
        Transfer t;
        t.sender = rank_of(rts.process);
        t.receiver = rts.peer;
        t.bytes = static_cast<std::uint64_t>(rts.value);
        t.rts_ns = rts.t_ns;
        const std::string receiver = fmt::format("rank{}", t.receiver);
        auto same_transfer = [&](int peer) {
            return [&, peer](const TraceEvent& e) { return e.peer == peer && e.id == rts.id; };
        };
        const TraceEvent* read =
            index.first(receiver, "read_issued", t.rts_ns, kForever, same_transfer(t.sender));
        const TraceEvent* write =
            index.first(rts.process, "write_issued", t.rts_ns, kForever, same_transfer(t.receiver));
        if (read == nullptr && write == nullptr) continue;  // the run ended first
        const TraceEvent* start =
            read == nullptr || (write != nullptr && write->t_ns < read->t_ns) ? write : read;
        t.move_start_ns = start->t_ns;
        if (start == write) {
            t.moved_by = "sender";
            t.move_end_ns = time_of(index.first(rts.process, "write_done", start->t_ns, kForever,
                                                same_transfer(t.receiver)));
            t.sender_done_ns = t.move_end_ns;
        } else {
            t.moved_by = start->thread == "interrupt" ? "interrupt thread" : "application";
            t.move_end_ns = time_of(
                index.first(receiver, "read_done", start->t_ns, kForever, same_transfer(t.sender)));
            t.sender_done_ns =
                time_of(index.first(rts.process, "fin_seen", start->t_ns, kForever,
                                    [&](const TraceEvent& e) { return e.id == rts.id; }));
        }
        auto about_receiver = [&](const TraceEvent& e) { return e.peer == t.receiver; };
        const TraceEvent* matched =
            index.first("*", "helper_matched", t.rts_ns, *t.move_start_ns, about_receiver);
        if (matched != nullptr) {
            t.matched_ns = matched->t_ns;
            const TraceEvent* wake =
                index.first("*", "wake_issued", matched->t_ns, *t.move_start_ns, about_receiver);
            if (wake != nullptr) {
                t.wake_ns = wake->t_ns;
                t.running_ns =
                    time_of(index.first(receiver, "interrupt_running", wake->t_ns, *t.move_start_ns,
                                        [](const TraceEvent&) { return true; }));
            }
        }
        t.receiver_posted_ns = time_of(index.last_before(receiver, "recv_posted", t.rts_ns));
        t.receiver_waits_ns =
            time_of(index.first(receiver, "wait_entered", t.rts_ns, kForever,
                                [](const TraceEvent& e) { return e.thread == "application"; }));
        transfers.push_back(t);
    }
    return transfers;
}

std::vector<Stage> stages_of(const std::vector<Transfer>& transfers) {
    std::vector<Stage> stages = {{"rts->match", {}},        {"match->wake", {}},
                                 {"wake->running", {}},     {"running->move", {}},
                                 {"rts->move", {}},         {"move", {}},
                                 {"move->sender done", {}}, {"rts->receiver in MPI", {}}};
    auto add = [](Stage& stage, const std::optional<std::uint64_t>& from,
                  const std::optional<std::uint64_t>& to) {
        if (from && to && *to >= *from) stage.us.push_back(1e-3 * static_cast<double>(*to - *from));
    };
    for (const Transfer& t : transfers) {
        const std::optional<std::uint64_t> rts = t.rts_ns;
        add(stages[0], rts, t.matched_ns);
        add(stages[1], t.matched_ns, t.wake_ns);
        add(stages[2], t.wake_ns, t.running_ns);
        if (t.moved_by == "interrupt thread") add(stages[3], t.running_ns, t.move_start_ns);
        add(stages[4], rts, t.move_start_ns);
        add(stages[5], t.move_start_ns, t.move_end_ns);
        add(stages[6], t.move_end_ns, t.sender_done_ns);
        add(stages[7], rts, t.receiver_waits_ns);
    }
    return stages;
}

namespace {

double percentile(std::vector<double> values, double fraction) {
    std::sort(values.begin(), values.end());
    const auto at =
        static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(at, values.size() - 1)];
}

std::string relative(const Transfer& t, const std::optional<std::uint64_t>& time) {
    if (!time) return "";
    return fmt::format("{:.2f}",
                       1e-3 * (static_cast<double>(*time) - static_cast<double>(t.rts_ns)));
}

std::string stage_table(const std::vector<Transfer>& transfers) {
    std::map<std::uint64_t, std::vector<Transfer>> by_size;
    for (const Transfer& t : transfers) by_size[t.bytes].push_back(t);
    std::string text;
    for (const auto& [bytes, group] : by_size) {
        std::map<std::string, int> movers;
        for (const Transfer& t : group) ++movers[t.moved_by];
        std::string moved;
        for (const auto& [who, count] : movers)
            moved += fmt::format("{}{} {}", moved.empty() ? "" : ", ", count, who);
        text +=
            fmt::format("{} bytes: {} transfers; data moved by {}\n", bytes, group.size(), moved);
        text +=
            fmt::format("  {:<22} {:>6} {:>12} {:>12}\n", "stage", "count", "median us", "p90 us");
        for (const Stage& stage : stages_of(group)) {
            if (stage.us.empty()) {
                text += fmt::format("  {:<22} {:>6} {:>12} {:>12}\n", stage.name, 0, "-", "-");
                continue;
            }
            text += fmt::format("  {:<22} {:>6} {:>12.1f} {:>12.1f}\n", stage.name, stage.us.size(),
                                percentile(stage.us, 0.5), percentile(stage.us, 0.9));
        }
    }
    return text;
}

// The most common size, and transfers of it that reached the receiver's wait.
std::vector<Transfer> timeline_sample(const std::vector<Transfer>& transfers, int repetitions) {
    std::map<std::uint64_t, int> count;
    for (const Transfer& t : transfers) ++count[t.bytes];
    std::uint64_t size = 0;
    int most = 0;
    for (const auto& [bytes, n] : count)
        if (n >= most) std::tie(size, most) = std::pair{bytes, n};
    std::vector<Transfer> complete;
    for (const Transfer& t : transfers)
        if (t.bytes == size && t.move_end_ns && t.receiver_waits_ns && t.receiver_posted_ns)
            complete.push_back(t);
    std::vector<Transfer> sample;
    const std::size_t middle = complete.size() / 2;
    for (std::size_t i = middle;
         i < complete.size() && sample.size() < static_cast<std::size_t>(repetitions); ++i)
        sample.push_back(complete[i]);
    return sample;
}

// Lanes, bottom to top, of each sampled transfer.
constexpr int kReceiverApp = 0, kReceiverThread = 1, kMatcher = 2, kSender = 3, kLanes = 5;

std::string timeline_data(const std::vector<Transfer>& sample) {
    std::string computing = "# x0 y dx (us from the RTS): the receiver computing\n";
    std::string moving = "# x0 y dx: the data moving, on the lane of who moves it\n";
    std::string marks = "# x y label label_y: events\n";
    for (std::size_t k = 0; k < sample.size(); ++k) {
        const Transfer& t = sample[k];
        const double base = static_cast<double>(k * kLanes);
        auto us = [&](std::uint64_t time) {
            return 1e-3 * (static_cast<double>(time) - static_cast<double>(t.rts_ns));
        };
        auto bar = [&](std::string& block, std::uint64_t from, std::uint64_t to, int lane) {
            block +=
                fmt::format("{:.2f} {:.1f} {:.2f}\n", us(from), base + lane, us(to) - us(from));
        };
        // A label above its point, or below it: the wake-up follows the match
        // within a microsecond on the same lane, and their labels would overlap.
        auto mark = [&](const std::optional<std::uint64_t>& time, int lane, const char* label,
                        bool below = false) {
            if (time)
                marks += fmt::format("{:.2f} {:.1f} \"{}\" {:.2f}\n", us(*time), base + lane,
                                     label, base + lane + (below ? -0.4 : 0.35));
        };
        bar(computing, *t.receiver_posted_ns, *t.receiver_waits_ns, kReceiverApp);
        const int mover = t.moved_by == "sender"             ? kSender
                          : t.moved_by == "interrupt thread" ? kReceiverThread
                                                             : kReceiverApp;
        bar(moving, *t.move_start_ns, *t.move_end_ns, mover);
        mark(t.rts_ns, kSender, "RTS");
        mark(t.sender_done_ns, kSender, "done");
        mark(t.matched_ns, kMatcher, "match");
        mark(t.wake_ns, kMatcher, "wake", true);
        mark(t.running_ns, kReceiverThread, "runs");
        mark(t.receiver_waits_ns, kReceiverApp, "MPI_Wait");
    }
    return computing + "\n\n" + moving + "\n\n" + marks;
}

std::string timeline_script(const std::vector<Transfer>& sample) {
    std::string ytics;
    for (std::size_t k = 0; k < sample.size(); ++k) {
        const double base = static_cast<double>(k * kLanes);
        ytics += fmt::format(
            "{}\"#{} receiver\" {}, \"interrupt thread\" {}, \"helper / blocked rank\" {}, "
            "\"sender\" {}",
            k == 0 ? "" : ", ", k + 1, base + kReceiverApp, base + kReceiverThread, base + kMatcher,
            base + kSender);
    }
    return fmt::format(
        "set terminal pngcairo noenhanced size 1100,{} font 'sans,9'\n"
        "set output 'timeline.png'\n"
        "set title 'Rendezvous transfers of {} bytes: receiver computing (thin bar), data moving "
        "(thick bar on the lane that moves it)'\n"
        "set xlabel 'microseconds after the RTS left'\n"
        "set ytics ({})\nset yrange [-1:{}]\nset grid x\nunset key\n"
        "plot 'timeline.dat' index 0 using 1:2:3:(0) with vectors nohead lw 2 lc rgb '#7f8c8d', "
        "\\\n"
        "     'timeline.dat' index 1 using 1:2:3:(0) with vectors nohead lw 8 lc rgb '#4a7ab0', "
        "\\\n"
        "     'timeline.dat' index 2 using 1:2 with points pt 7 ps 1 lc rgb '#c0392b', \\\n"
        "     'timeline.dat' index 2 using 1:4:3 with labels font 'sans,8'\n",
        180 + 110 * sample.size(), sample.empty() ? 0 : sample.front().bytes, ytics,
        sample.size() * kLanes);
}

// Log-spaced bins, 8 per decade, from 0.1 us. Stages without samples get no data set:
// gnuplot does not count empty sets at the start of a file, which shifts `index`.
std::string histogram_data(const std::vector<Stage>& stages) {
    std::string text;
    for (const Stage& stage : stages) {
        if (stage.us.empty()) continue;
        text += fmt::format("# {}\n", stage.name);
        std::map<int, int> bins;
        for (double us : stage.us)
            ++bins[static_cast<int>(std::floor(8 * std::log10(std::max(us, 0.1) / 0.1)))];
        for (const auto& [bin, n] : bins)
            text += fmt::format("{:.3f} {}\n", 0.1 * std::pow(10, bin / 8.0), n);
        text += "\n\n";
    }
    return text;
}

std::string histogram_script(const std::vector<Stage>& stages) {
    std::string plots;
    int index = 0;
    for (const Stage& stage : stages)
        if (!stage.us.empty())
            plots += fmt::format("{}'stages.dat' index {} using 1:2 with linespoints title '{}'",
                                 plots.empty() ? "" : ", \\\n     ", index++, stage.name);
    return "set terminal pngcairo noenhanced size 900,500 font 'sans,9'\nset output 'stages.png'\n"
           "set title 'Stage latencies of the rendezvous path'\nset logscale x\n"
           "set xlabel 'microseconds'\nset ylabel 'transfers'\nset grid\nset key outside right\n"
           "plot " +
           (plots.empty() ? "NaN notitle" : plots) + "\n";
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

std::string write_trace_report(const std::vector<Transfer>& transfers,
                               const std::vector<TraceEvent>& events, const std::string& dir,
                               int repetitions, std::vector<std::string>& notes) {
    (void)events;
    fs::create_directories(dir);
    std::string csv =
        "sender,receiver,bytes,moved_by,posted_us,matched_us,wake_us,running_us,move_start_us,"
        "move_end_us,sender_done_us,receiver_waits_us\n";
    for (const Transfer& t : transfers)
        csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", t.sender, t.receiver, t.bytes,
                           t.moved_by, relative(t, t.receiver_posted_ns), relative(t, t.matched_ns),
                           relative(t, t.wake_ns), relative(t, t.running_ns),
                           relative(t, t.move_start_ns), relative(t, t.move_end_ns),
                           relative(t, t.sender_done_ns), relative(t, t.receiver_waits_ns));
    write_file(fs::path(dir) / "transfers.csv", csv);
    const std::string table = stage_table(transfers);
    write_file(fs::path(dir) / "stages.txt", table);
    const std::vector<Stage> stages = stages_of(transfers);
    write_file(fs::path(dir) / "stages.dat", histogram_data(stages));
    write_file(fs::path(dir) / "stages.gp", histogram_script(stages));
    const std::vector<Transfer> sample = timeline_sample(transfers, repetitions);
    write_file(fs::path(dir) / "timeline.dat", timeline_data(sample));
    write_file(fs::path(dir) / "timeline.gp", timeline_script(sample));
    for (const char* script : {"stages.gp", "timeline.gp"}) run_gnuplot(dir, script, notes);
    return table;
}

}  // namespace si::harness
