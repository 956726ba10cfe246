#include "sirun/job.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bootstrap/pmi1_wire.hpp"
#include "sirun/pmi_server.hpp"
#include "sirun/spawn.hpp"

namespace si::sirun {

namespace pmi1 = bootstrap::pmi1;

namespace {

using Clock = std::chrono::steady_clock;

// SIGTERM first so ranks (and their helpers) can remove what they created;
// SIGKILL after this grace, which keeps the whole job gone within a second.
constexpr auto kGrace = std::chrono::milliseconds(500);

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

bool ends_the_job(int signal) { return signal != SIGUSR1 && signal != SIGUSR2; }

std::string signal_text(int signal) {
    const char* name = ::strsignal(signal);
    return fmt::format("signal {} ({})", signal, name != nullptr ? name : "unknown");
}

std::string new_kvsname() {
    // The pid keeps names of concurrent jobs apart; the random part keeps a new
    // job clear of leftovers of a killed job that had the same pid.
    std::random_device entropy;
    return fmt::format("sirun-{}-{:08x}", ::getpid(), entropy());
}

struct Rank {
    int index = 0;
    pid_t pid = -1;
    int fd = -1;
    bool running = false;
    pmi1::LineBuffer input;
    std::string output;
};

class Job {
public:
    explicit Job(const JobOptions& options)
        : options_(options), server_(options.ranks, new_kvsname()),
          ranks_(static_cast<std::size_t>(options.ranks)) {}
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;
    ~Job();

    JobResult run();

private:
    void block_signals();
    void start_ranks();
    void serve();
    void handle_signals();
    void handle_signal(int signal);
    void reap();
    void reap_blocking();
    void rank_exited(Rank& rank, int status);
    void read_from(Rank& rank);
    void flush(Rank& rank);
    void close_connection(Rank& rank);
    void fail(int exit_code, const Rank* rank, std::string_view what);
    void begin_ending(int signal);
    void signal_groups(int signal);
    void check_deadlines();
    int poll_timeout_ms() const;
    void wait_for_descendants();

    const JobOptions& options_;
    PmiServer server_;
    std::vector<Rank> ranks_;
    sigset_t old_mask_{};
    bool mask_changed_ = false;
    int signal_fd_ = -1;
    int running_ = 0;
    bool ending_ = false;
    JobResult result_;
    std::optional<Clock::time_point> timeout_at_;
    std::optional<Clock::time_point> kill_at_;
};

Job::~Job() {
    for (Rank& rank : ranks_) close_connection(rank);
    if (signal_fd_ >= 0) ::close(signal_fd_);
    if (mask_changed_) ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

// Signals go through a signalfd from before the first fork to after the last
// wait, so a SIGTERM or SIGINT to sirun at any moment ends the ranks and
// still runs the clean-up, instead of killing sirun and orphaning the job.
void Job::block_signals() {
    sigset_t set;
    ::sigemptyset(&set);
    ::sigaddset(&set, SIGCHLD);
    for (int signal : kForwarded) ::sigaddset(&set, signal);
    if (::sigprocmask(SIG_BLOCK, &set, &old_mask_) != 0)
        si::fail("{}", errno_message("sigprocmask", errno));
    mask_changed_ = true;
    signal_fd_ = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (signal_fd_ < 0) si::fail("{}", errno_message("signalfd", errno));
    // Orphans of the ranks (helpers whose rank died) are reparented to sirun,
    // so it can see them go and the job does not end while they linger.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

JobResult Job::run() {
    block_signals();
    start_ranks();
    if (options_.timeout_seconds > 0)
        timeout_at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(options_.timeout_seconds));
    serve();
    wait_for_descendants();
    remove_job_segments(server_.kvsname());
    return result_;
}

void Job::start_ranks() {
    const std::vector<std::string> environment = shared_environment(options_);
    // Only rank 0 reads sirun's stdin, and not from a terminal: the ranks are
    // not in the terminal's foreground group, so a read would stop them.
    int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const bool pass_stdin = ::isatty(STDIN_FILENO) == 0;
    for (int r = 0; r < options_.ranks; ++r) {
        Rank& rank = ranks_[r];
        rank.index = r;
        int stdin_fd = (r == 0 && pass_stdin) || null_fd < 0 ? STDIN_FILENO : null_fd;
        SpawnedRank spawned = spawn_rank({&options_, &environment, r, stdin_fd, old_mask_});
        if (spawned.pid < 0) {
            fail(1, nullptr, fmt::format("cannot start rank {}: {}", r,
                                         errno_message(spawned.failed_call, errno)));
            break;
        }
        rank.pid = spawned.pid;
        rank.fd = spawned.fd;
        rank.running = true;
        ++running_;
    }
    if (null_fd >= 0) ::close(null_fd);
}

int Job::poll_timeout_ms() const {
    std::optional<Clock::time_point> next = kill_at_;
    if (timeout_at_ && !ending_ && (!next || *timeout_at_ < *next)) next = timeout_at_;
    if (!next) return -1;
    auto left = std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now()).count();
    return left < 0 ? 0 : static_cast<int>(left);
}

void Job::serve() {
    std::vector<pollfd> entries;
    std::vector<Rank*> owners;
    while (running_ > 0) {
        entries.assign(1, pollfd{signal_fd_, POLLIN, 0});
        owners.assign(1, nullptr);
        for (Rank& rank : ranks_) {
            if (rank.fd < 0) continue;
            short events = POLLIN;
            if (!rank.output.empty()) events |= POLLOUT;
            entries.push_back({rank.fd, events, 0});
            owners.push_back(&rank);
        }
        int ready = ::poll(entries.data(), entries.size(), poll_timeout_ms());
        if (ready < 0 && errno != EINTR) {
            // Without poll() nothing can be served or timed: end the job now.
            fail(1, nullptr, errno_message("poll", errno));
            signal_groups(SIGKILL);
            reap_blocking();
            return;
        }
        // Rank sockets before the signalfd: a rank that sent abort and then
        // exited must be seen aborting, not exiting.
        for (std::size_t i = 1; ready > 0 && i < entries.size(); ++i) {
            if (owners[i]->fd < 0) continue;
            if (entries[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(*owners[i]);
            if ((entries[i].revents & POLLOUT) && owners[i]->fd >= 0) flush(*owners[i]);
        }
        if (ready > 0 && (entries[0].revents & POLLIN)) handle_signals();
        check_deadlines();
    }
}

void Job::handle_signals() {
    signalfd_siginfo info;
    while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        if (static_cast<int>(info.ssi_signo) == SIGCHLD)
            reap();
        else
            handle_signal(static_cast<int>(info.ssi_signo));
    }
}

void Job::handle_signal(int signal) {
    if (!ends_the_job(signal)) {
        signal_groups(signal);
        return;
    }
    if (ending_) {
        // Asked again while ending: the user is not waiting for the grace period.
        signal_groups(SIGKILL);
        return;
    }
    std::fprintf(stderr, "sirun: received %s; forwarding it to the ranks and ending the job\n",
                 signal_text(signal).c_str());
    result_ = {128 + signal, signal};
    begin_ending(signal);
}

void Job::reap() {
    for (;;) {
        int status = 0;
        pid_t pid = ::waitpid(-1, &status, WNOHANG);
        if (pid <= 0) return;
        for (Rank& rank : ranks_)
            if (rank.pid == pid && rank.running) rank_exited(rank, status);
    }
}

void Job::reap_blocking() {
    while (running_ > 0) {
        int status = 0;
        pid_t pid = ::waitpid(-1, &status, 0);
        if (pid < 0 && errno != EINTR) return;
        for (Rank& rank : ranks_)
            if (rank.pid == pid && rank.running) {
                rank.running = false;
                --running_;
            }
    }
}

void Job::rank_exited(Rank& rank, int status) {
    rank.running = false;
    --running_;
    // Whatever the rank wrote before exiting (an abort request) counts first.
    if (rank.fd >= 0) read_from(rank);
    close_connection(rank);
    if (ending_) return;
    if (WIFSIGNALED(status)) {
        fail(128 + WTERMSIG(status), &rank, "was killed by " + signal_text(WTERMSIG(status)));
    } else if (WEXITSTATUS(status) != 0) {
        fail(WEXITSTATUS(status), &rank, fmt::format("exited with status {}", WEXITSTATUS(status)));
    } else if (server_.initialized(rank.index) && !server_.finalized(rank.index)) {
        // Status 0 would read as success although the job is being cut short.
        fail(1, &rank, "exited without calling MPI_Finalize");
    } else {
        // A rank that ended well takes anything it started with it.
        ::kill(-rank.pid, SIGTERM);
    }
}

void Job::read_from(Rank& rank) {
    std::vector<PmiReply> replies;
    for (;;) {
        pmi1::LineBuffer::Fill fill = rank.input.fill_from(rank.fd);
        while (auto line = rank.input.take_line()) {
            PmiEvent event = server_.handle_line(rank.index, *line, replies);
            if (event.kind == PmiEvent::Kind::aborted) {
                int code = event.exit_code >= 0 && event.exit_code <= 255 ? event.exit_code : 255;
                fail(code, &rank, fmt::format("called MPI_Abort with code {}", event.exit_code));
            } else if (event.kind == PmiEvent::Kind::protocol_error) {
                fail(1, &rank, event.problem);
            }
        }
        if (rank.input.overflowed()) {
            fail(1, &rank, "sent a line too long for PMI-1");
            close_connection(rank);
            break;
        }
        if (fill == pmi1::LineBuffer::Fill::data) continue;
        if (fill != pmi1::LineBuffer::Fill::would_block) close_connection(rank);
        break;
    }
    for (PmiReply& reply : replies) {
        Rank& to = ranks_[reply.rank];
        if (to.fd < 0) continue;
        to.output += reply.line;
        flush(to);
    }
}

void Job::flush(Rank& rank) {
    long written = pmi1::write_some(rank.fd, rank.output);
    if (written < 0) {
        rank.output.clear();  // the rank closed its end; its exit tells the rest
        return;
    }
    rank.output.erase(0, static_cast<std::size_t>(written));
}

void Job::close_connection(Rank& rank) {
    if (rank.fd < 0) return;
    ::close(rank.fd);
    rank.fd = -1;
    rank.output.clear();
}

void Job::fail(int exit_code, const Rank* rank, std::string_view what) {
    if (ending_) return;
    if (rank != nullptr)
        std::fprintf(stderr, "sirun: rank %d (pid %d) %.*s; ending the job\n", rank->index,
                     static_cast<int>(rank->pid), static_cast<int>(what.size()), what.data());
    else
        std::fprintf(stderr, "sirun: %.*s; ending the job\n", static_cast<int>(what.size()),
                     what.data());
    result_ = {exit_code, 0};
    begin_ending(SIGTERM);
}

void Job::begin_ending(int signal) {
    ending_ = true;
    signal_groups(signal);
    kill_at_ = Clock::now() + kGrace;
}

void Job::signal_groups(int signal) {
    // Groups of ranks that already exited too: their helpers may still run.
    for (const Rank& rank : ranks_)
        if (rank.pid > 0) ::kill(-rank.pid, signal);
}

void Job::check_deadlines() {
    const auto now = Clock::now();
    if (kill_at_ && now >= *kill_at_) {
        signal_groups(SIGKILL);
        kill_at_.reset();
    }
    if (timeout_at_ && !ending_ && now >= *timeout_at_) {
        std::string still;
        for (const Rank& rank : ranks_)
            if (rank.running)
                still += fmt::format("{}{} (pid {})", still.empty() ? "" : ", ", rank.index, rank.pid);
        std::fprintf(stderr, "sirun: timed out after %g s; ranks still running: %s; ending the job\n",
                     options_.timeout_seconds, still.c_str());
        result_ = {124, 0};
        begin_ending(SIGTERM);
    }
}

// After the last rank: processes the ranks started may still run (sirun is
// their subreaper). They get the same treatment as ranks, bounded in time.
void Job::wait_for_descendants() {
    // When the job is ending, its SIGKILL deadline stands (or already passed).
    bool killed = ending_ && !kill_at_;
    auto deadline = kill_at_.value_or(Clock::now() + kGrace);
    for (;;) {
        int status = 0;
        pid_t pid = ::waitpid(-1, &status, WNOHANG);
        if (pid > 0) continue;
        if (pid < 0) return;  // ECHILD: nothing left
        auto now = Clock::now();
        if (now >= deadline) {
            if (killed) {
                std::fprintf(stderr, "sirun: processes started by the ranks left their process "
                                     "groups and are still running\n");
                return;
            }
            signal_groups(SIGKILL);
            killed = true;
            deadline = now + kGrace;
        }
        auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
        pollfd entry{signal_fd_, POLLIN, 0};
        ::poll(&entry, 1, static_cast<int>(left));
        signalfd_siginfo info;
        while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info))
            if (static_cast<int>(info.ssi_signo) != SIGCHLD) signal_groups(SIGKILL);
    }
}

}  // namespace

JobResult run_job(const JobOptions& options) {
    std::fflush(stdout);
    Job job(options);
    return job.run();
}

int remove_job_segments(std::string_view job_id) {
    if (job_id.empty() || job_id.find('/') != std::string_view::npos) return 0;
    const std::string prefix = fmt::format("si-{}-", job_id);
    DIR* dir = ::opendir("/dev/shm");
    if (dir == nullptr) return 0;
    int removed = 0;
    while (dirent* entry = ::readdir(dir)) {
        std::string_view name(entry->d_name);
        if (!name.starts_with(prefix)) continue;
        if (::shm_unlink(("/" + std::string(name)).c_str()) == 0) ++removed;
    }
    ::closedir(dir);
    return removed;
}

}  // namespace si::sirun
