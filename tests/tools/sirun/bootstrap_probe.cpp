// A rank for sirun's tests: uses the bootstrap layer directly (there is no MPI
// library to link yet) and misbehaves in the ways the tests ask for.
//
//   bootstrap_probe kvs                      put/fence/get across all ranks
//   bootstrap_probe env K=V...               the ranks see these variables
//   bootstrap_probe args ...                 prints its arguments, one per line
//   bootstrap_probe exit <rank> <code>       that rank exits with code after finalize
//   bootstrap_probe kill-self <rank> <dir>   that rank SIGKILLs itself; the others
//                                            and one helper per rank ignore SIGTERM
//   bootstrap_probe abort <rank> <code>      that rank asks the launcher to abort
//   bootstrap_probe no-finalize <rank>       that rank exits 0 without finalize
//   bootstrap_probe sleep <dir> <seconds>    every rank sleeps; SIGUSR1 leaves a file
//   bootstrap_probe shm [fail|hold]          every rank leaves /dev/shm/si-<job>-* behind;
//                                            then rank 0 fails, or all ranks sleep
//   bootstrap_probe affinity                 every rank prints "rank R cpus 0,1,..."
//
// <dir> receives one file per process (named after its role, holding its
// pid) so that a test can check that nothing survived the job.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bootstrap/bootstrap.hpp"

namespace {

using si::bootstrap::Bootstrap;

volatile sig_atomic_t g_usr1 = 0;

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "probe: %s\n", message.c_str());
    std::exit(99);
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text << '\n';
    if (!out) die("cannot write " + path);
}

void sleep_seconds(double seconds) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

long long now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

bool job_id_is_clean(const std::string& id) {
    if (id.empty()) return false;
    for (char c : id)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
    return true;
}

void check_kvs(Bootstrap& boot) {
    const int rank = boot.rank();
    const int size = boot.size();
    if (size < 1 || rank < 0 || rank >= size) die(fmt::format("rank {} of {}", rank, size));
    if (!job_id_is_clean(boot.job_id())) die("job id is not clean: " + boot.job_id());
    // Values as long as the process manager allows, to exercise long lines.
    const std::size_t long_length = std::min<std::size_t>(boot.max_value_length(), 1000);
    for (int round = 0; round < 3; ++round) {
        boot.put(fmt::format("k-{}", rank), fmt::format("v{}-{}-{}", round, rank, boot.job_id()));
        boot.put(fmt::format("long-{}", rank), std::string(long_length, static_cast<char>('a' + rank % 26)));
        boot.fence();
        for (int r = 0; r < size; ++r) {
            std::string want = fmt::format("v{}-{}-{}", round, r, boot.job_id());
            std::string got = boot.get(fmt::format("k-{}", r));
            if (got != want) die(fmt::format("rank {} read k-{}='{}', expected '{}'", rank, r, got, want));
            if (boot.get(fmt::format("long-{}", r)) != std::string(long_length, static_cast<char>('a' + r % 26)))
                die(fmt::format("rank {} read a wrong long-{}", rank, r));
        }
        // Nobody overwrites k-* before everyone has read this round.
        boot.fence();
    }
    try {
        boot.get("never-put");
        die("get of a missing key did not fail");
    } catch (const si::Error&) {
    }
    if (rank == 0) std::printf("job %s, %d rank(s)\n", boot.job_id().c_str(), size);
}

void check_env(Bootstrap& boot, int argc, char** argv) {
    for (int i = 2; i < argc; ++i) {
        std::string assignment = argv[i];
        std::string name = assignment.substr(0, assignment.find('='));
        const char* value = std::getenv(name.c_str());
        if (value == nullptr || assignment != name + "=" + value)
            die(fmt::format("rank {}: expected {}, found {}", boot.rank(), assignment,
                            value != nullptr ? value : "(unset)"));
    }
    const char* local_size = std::getenv("MPI_LOCALNRANKS");
    const char* local_rank = std::getenv("MPI_LOCALRANKID");
    if (local_size == nullptr || std::atoi(local_size) != boot.size() || local_rank == nullptr ||
        std::atoi(local_rank) != boot.rank())
        die("MPI_LOCALNRANKS / MPI_LOCALRANKID do not match the rank");
    boot.fence();
}

// A process that stays in the rank's process group and ignores SIGTERM, as a
// careless helper would; only SIGKILL to the group ends it.
void start_stubborn_helper(const std::string& dir, int rank) {
    pid_t pid = ::fork();
    if (pid < 0) die("fork failed");
    if (pid == 0) {
        ::signal(SIGTERM, SIG_IGN);
        for (;;) ::pause();
    }
    write_file(fmt::format("{}/helper.{}", dir, rank), std::to_string(pid));
}

void sleep_forever_ignoring_sigterm() {
    ::signal(SIGTERM, SIG_IGN);
    sleep_seconds(60);
    std::exit(0);
}

void create_leftover_segments(Bootstrap& boot, const std::string& then) {
    std::string name = fmt::format("/si-{}-probe-{}", boot.job_id(), boot.rank());
    int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) die("shm_open " + name + ": " + std::strerror(errno));
    if (::ftruncate(fd, 4096) != 0) die("ftruncate");
    ::close(fd);
    boot.fence();
    for (int r = 0; r < boot.size(); ++r) {
        std::string other = fmt::format("/si-{}-probe-{}", boot.job_id(), r);
        int other_fd = ::shm_open(other.c_str(), O_RDONLY, 0);
        if (other_fd < 0) die("segment of rank " + std::to_string(r) + " missing");
        ::close(other_fd);
    }
    if (boot.rank() == 0) std::printf("job_id=%s\n", boot.job_id().c_str());
    std::fflush(stdout);
    boot.fence();
    if (then == "fail" && boot.rank() == 0) std::exit(3);
    if (then == "fail" || then == "hold") sleep_seconds(60);
}

// Read with sched_getaffinity, not through si_node, so that the test of
// `sirun --bind` does not trust the code it tests.
void print_affinity(Bootstrap& boot) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) die("sched_getaffinity failed");
    std::string cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) cpus += (cpus.empty() ? "" : ",") + std::to_string(cpu);
    std::printf("rank %d cpus %s\n", boot.rank(), cpus.c_str());
    std::fflush(stdout);
    boot.fence();
}

int run(int argc, char** argv) {
    if (argc < 2) die("usage: bootstrap_probe <mode> ...");
    const std::string mode = argv[1];
    if (mode == "args") {
        for (int i = 2; i < argc; ++i) std::printf("arg: %s\n", argv[i]);
        return 0;
    }
    auto boot = si::bootstrap::connect();
    const int rank = boot->rank();
    auto arg = [&](int i) -> std::string {
        if (i >= argc) die("missing argument for mode " + mode);
        return argv[i];
    };

    if (mode == "kvs") {
        check_kvs(*boot);
    } else if (mode == "env") {
        check_env(*boot, argc, argv);
    } else if (mode == "exit") {
        boot->fence();
        boot->finalize();
        return rank == std::stoi(arg(2)) ? std::stoi(arg(3)) : 0;
    } else if (mode == "kill-self") {
        const std::string dir = arg(3);
        write_file(fmt::format("{}/rank.{}", dir, rank), std::to_string(::getpid()));
        start_stubborn_helper(dir, rank);
        boot->fence();
        if (rank == std::stoi(arg(2))) {
            write_file(dir + "/killed_at_ms", std::to_string(now_ms()));
            ::raise(SIGKILL);
        }
        sleep_forever_ignoring_sigterm();
    } else if (mode == "abort") {
        boot->fence();
        if (rank == std::stoi(arg(2))) {
            const int code = std::stoi(arg(3));
            boot->abort(code, "the probe aborts on purpose");
            ::_exit(code);
        }
        sleep_seconds(60);
        return 0;
    } else if (mode == "no-finalize") {
        boot->fence();
        if (rank == std::stoi(arg(2))) return 0;
        sleep_seconds(60);
    } else if (mode == "sleep") {
        const std::string dir = arg(2);
        ::signal(SIGUSR1, [](int) { g_usr1 = 1; });
        write_file(fmt::format("{}/rank.{}", dir, rank), std::to_string(::getpid()));
        boot->fence();
        auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::stod(arg(3)));
        while (std::chrono::steady_clock::now() < end) {
            if (g_usr1) {
                g_usr1 = 0;
                write_file(fmt::format("{}/usr1.{}", dir, rank), std::to_string(::getpid()));
            }
            sleep_seconds(0.02);
        }
    } else if (mode == "affinity") {
        print_affinity(*boot);
    } else if (mode == "shm") {
        create_leftover_segments(*boot, argc > 2 ? argv[2] : "");
    } else {
        die("unknown mode " + mode);
    }
    boot->finalize();
    // After finalize, so that a failure there cannot pass a test.
    if ((mode == "kvs" || mode == "env") && rank == 0) std::printf("No Errors\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "probe: %s\n", error.what());
        return 98;
    }
}
