#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "units.hpp"

namespace si::harness {

namespace {

volatile sig_atomic_t g_interrupted = 0;

void on_interrupt(int) {
    g_interrupted = 1;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// In the child between fork and exec: only async-signal-safe calls plus setenv, which
// is fine because sibench has a single thread.
[[noreturn]] void exec_child(const Command& command, int log_fd, int error_fd,
                             const std::string& cwd) {
    ::setpgid(0, 0);
    // sibench's handlers do not survive exec anyway; ignored signals would.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
        const int error = errno;
        [[maybe_unused]] auto written = ::write(error_fd, &error, sizeof error);
        ::_exit(127);
    }
    for (const auto& [key, value] : command.env) ::setenv(key.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& word : command.argv) argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    const int error = errno;
    [[maybe_unused]] auto written = ::write(error_fd, &error, sizeof error);
    ::_exit(127);
}

}  // namespace

void install_interrupt_handler() {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a sleep returns early
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

bool interrupted_by_user() {
    return g_interrupted != 0;
}

ProcessResult run_process(const Command& command, const std::string& log_path, double timeout_s,
                          const std::string& cwd) {
    ProcessResult result;
    if (command.argv.empty()) {
        result.error = "empty command";
        return result;
    }
    const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        result.error = fmt::format("cannot write {}: {}", log_path, std::strerror(errno));
        return result;
    }
    // The child reports a failed exec through this pipe (closed on a successful exec).
    int error_pipe[2];
    if (::pipe2(error_pipe, O_CLOEXEC) != 0) {
        ::close(log_fd);
        result.error = fmt::format("pipe: {}", std::strerror(errno));
        return result;
    }
    const auto start = Clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) {
        result.error = fmt::format("fork: {}", std::strerror(errno));
        ::close(log_fd);
        ::close(error_pipe[0]);
        ::close(error_pipe[1]);
        return result;
    }
    if (pid == 0) exec_child(command, log_fd, error_pipe[1], cwd);
    ::setpgid(pid, pid);  // also here: whichever of parent and child runs first
    ::close(log_fd);
    ::close(error_pipe[1]);
    int exec_errno = 0;
    const bool exec_failed =
        ::read(error_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
    ::close(error_pipe[0]);

    int status = 0;
    bool ending = false;  // SIGTERM sent
    Clock::time_point term_sent;
    while (true) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) break;
        const bool over_time = timeout_s > 0 && seconds_since(start) > timeout_s;
        if (!ending && (over_time || g_interrupted)) {
            result.timed_out = over_time && !g_interrupted;
            result.interrupted = g_interrupted != 0;
            ::kill(-pid, SIGTERM);
            ending = true;
            term_sent = Clock::now();
        } else if (ending && seconds_since(term_sent) > 5) {
            ::kill(-pid, SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    result.seconds = seconds_since(start);
    // Whatever the launcher left behind in its group (a stray rank or helper) would
    // distort the next run.
    ::kill(-pid, SIGKILL);
    if (exec_failed) {
        result.error = fmt::format("cannot run {}: {}", command.argv[0], std::strerror(exec_errno));
        result.exit_status = 127;
        return result;
    }
    if (WIFEXITED(status))
        result.exit_status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        result.exit_status = 128 + WTERMSIG(status);
    return result;
}

ProcessResult run_process_to(const Command& command, const std::string& stdout_path,
                             const std::string& log_path, double timeout_s,
                             const std::string& cwd) {
    Command redirected{{"sh", "-c", "out=$1; shift; exec \"$@\" > \"$out\"", "sh", stdout_path},
                       command.env};
    redirected.argv.insert(redirected.argv.end(), command.argv.begin(), command.argv.end());
    return run_process(redirected, log_path, timeout_s, cwd);
}

std::string find_program(const std::string& name) {
    namespace fs = std::filesystem;
    if (name.empty()) return "";
    if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
    const char* path = std::getenv("PATH");
    for (const auto& dir : split_list(path != nullptr ? path : "/usr/bin:/bin", ':')) {
        const fs::path candidate = fs::path(dir) / name;
        if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate))
            return candidate.string();
    }
    return "";
}

std::string capture_output(const std::vector<std::string>& argv, int max_lines) {
    if (argv.empty() || find_program(argv[0]).empty()) return "";
    FILE* pipe = ::popen((shell_join(argv) + " 2>&1").c_str(), "r");
    if (pipe == nullptr) return "";
    std::string text;
    char buffer[512];
    int lines = 0;
    while (lines < max_lines && std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
        std::string line(buffer);
        if (!line.empty() && line.back() == '\n') {
            line.pop_back();
            ++lines;
        }
        if (!text.empty()) text += " | ";
        text += line;
    }
    // Drain so that the program does not die of SIGPIPE before pclose reaps it.
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    }
    ::pclose(pipe);
    return text;
}

std::string tail_file(const std::string& path, int lines) {
    std::ifstream in(path);
    std::deque<std::string> last;
    std::string line;
    while (std::getline(in, line)) {
        last.push_back(line);
        if (static_cast<int>(last.size()) > lines) last.pop_front();
    }
    std::string text;
    for (const auto& kept : last) text += kept + '\n';
    return text;
}

}  // namespace si::harness
