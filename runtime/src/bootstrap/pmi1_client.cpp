// PMI-1 client: speaks the wire protocol to Hydra, Slurm's pmi2 plugin or
// sirun, and stands in for a process manager when there is none.
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "base/error.hpp"
#include "base/log.hpp"
#include "bootstrap/bootstrap.hpp"
#include "bootstrap/pmi1_wire.hpp"

namespace si::bootstrap {

namespace {

constexpr std::string_view kLauncherHint =
    "is this process started by a PMI-1 process manager (sirun, mpiexec.hydra, "
    "srun --mpi=pmi2)?";

// Shared-memory names are built from the job id, and they allow a single path
// component of limited length; long ids keep a readable head plus a hash of
// the whole so that two different kvs names never collide.
constexpr std::size_t kMaxJobId = 96;

std::string sanitize_job_id(std::string_view kvsname) {
    std::string id;
    for (char c : kvsname) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-';
        id += ok ? c : '_';
    }
    if (id.empty()) id = "job";
    if (id.size() > kMaxJobId) {
        std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
        for (char c : kvsname) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
        id = fmt::format("{}-{:016x}", id.substr(0, kMaxJobId - 17), hash);
    }
    return id;
}

std::optional<std::string> environment(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

int parse_env_int(const char* name, const std::string& text, int low) {
    int value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty() || value < low)
        fail("bootstrap: {}='{}' is not an integer >= {}; {}", name, text, low, kLauncherHint);
    return value;
}

int require_env_int(const char* name, const char* because, int low) {
    auto text = environment(name);
    if (!text) fail("bootstrap: {} is set but {} is not; {}", because, name, kLauncherHint);
    return parse_env_int(name, *text, low);
}

void check_key(std::string_view key, std::size_t max_length) {
    if (!pmi1::is_wire_key(key) || key.size() > max_length)
        fail("bootstrap: key '{}' cannot be stored: keys are 1 to {} printable characters "
             "without spaces or '='",
             key, max_length);
}

class SingletonBootstrap final : public Bootstrap {
public:
    SingletonBootstrap() : job_id_(fmt::format("single-{}", ::getpid())) {}

    int rank() const override { return 0; }
    int size() const override { return 1; }
    const std::string& job_id() const override { return job_id_; }

    void put(std::string_view key, std::string_view value) override {
        check_key(key, kMaxKey);
        if (!pmi1::is_wire_value(value) || value.size() > kMaxValue)
            fail("bootstrap: value for key '{}' cannot be stored: values are at most {} "
                 "printable characters without spaces",
                 key, kMaxValue);
        pending_[std::string(key)] = std::string(value);
    }

    // Only committed values are visible, like under a real process manager,
    // so a missing fence fails in a singleton run too.
    std::string get(std::string_view key) override {
        auto found = committed_.find(std::string(key));
        if (found == committed_.end())
            fail("bootstrap: key '{}' is not in the key-value store of this singleton job; "
                 "check that it was put before the last fence",
                 key);
        return found->second;
    }

    std::size_t max_value_length() const override { return kMaxValue; }

    void fence() override {
        for (auto& [key, value] : pending_) committed_[key] = std::move(value);
        pending_.clear();
    }

    // No process manager to ask: the caller ends the process.
    void abort(int exit_code, std::string_view message) override {
        log::error("aborting the job (exit code {}): {}", exit_code, message);
    }

    void finalize() override {}

private:
    // What Hydra allows, so a program that fits here fits there.
    static constexpr std::size_t kMaxKey = 63;
    static constexpr std::size_t kMaxValue = 1023;
    std::string job_id_;
    std::map<std::string, std::string> pending_;
    std::map<std::string, std::string> committed_;
};

class WireBootstrap final : public Bootstrap {
public:
    // Takes ownership of fd. Rank and size come from set_identity() (PMI_FD)
    // or exchange_initack() (PMI_PORT).
    WireBootstrap(int fd, std::string origin) : fd_(fd), origin_(std::move(origin)) {}
    WireBootstrap(const WireBootstrap&) = delete;
    WireBootstrap& operator=(const WireBootstrap&) = delete;
    ~WireBootstrap() override {
        if (fd_ >= 0) ::close(fd_);
    }

    void set_identity(int rank, int size) {
        rank_ = rank;
        size_ = size;
    }

    // PMI_PORT only: announce which process we are; the server answers with
    // initack and then our rank, the job size and its debug flag.
    void exchange_initack(int pmi_id) {
        send(pmi1::Message("initack").add("pmiid", pmi_id));
        pmi1::Message ack = receive("initack");
        check_rc(ack, "initack");
        bool have_size = false, have_rank = false, have_debug = false;
        while (!(have_size && have_rank && have_debug)) {
            pmi1::Message set = receive("set");
            if (auto v = set.find_int("size")) {
                size_ = static_cast<int>(*v);
                have_size = true;
            } else if (auto r = set.find_int("rank")) {
                rank_ = static_cast<int>(*r);
                have_rank = true;
            } else if (set.find("debug")) {
                have_debug = true;
            } else {
                fail("bootstrap: unexpected reply '{}' after initack from {}",
                     trimmed(set.format()), origin_);
            }
        }
        if (size_ < 1 || rank_ < 0 || rank_ >= size_)
            fail("bootstrap: {} gave rank {} in a job of size {}", origin_, rank_, size_);
    }

    void handshake() {
        request(pmi1::Message("init").add("pmi_version", 1).add("pmi_subversion", 1),
                "response_to_init");
        pmi1::Message maxes = request(pmi1::Message("get_maxes"), "maxes");
        // The maxes are buffer sizes in MPICH's and Hydra's C code, where the
        // terminating NUL takes one byte.
        key_max_ = read_max(maxes, "keylen_max") - 1;
        value_max_ = read_max(maxes, "vallen_max") - 1;
        pmi1::Message name = request(pmi1::Message("get_my_kvsname"), "my_kvsname");
        auto kvsname = name.find("kvsname");
        if (!kvsname || kvsname->empty())
            fail("bootstrap: {} answered get_my_kvsname without a kvsname: '{}'", origin_,
                 trimmed(name.format()));
        kvsname_ = std::string(*kvsname);
        job_id_ = sanitize_job_id(kvsname_);
    }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    const std::string& job_id() const override { return job_id_; }

    void put(std::string_view key, std::string_view value) override {
        check_key(key, key_max_);
        if (!pmi1::is_wire_value(value) || value.size() > value_max_)
            fail("bootstrap: value for key '{}' cannot be stored: values are at most {} "
                 "printable characters without spaces ({} given)",
                 key, value_max_, value.size());
        request(pmi1::Message("put").add("kvsname", kvsname_).add("key", key).add("value", value),
                "put_result");
    }

    std::string get(std::string_view key) override {
        check_key(key, key_max_);
        pmi1::Message ask("get");
        ask.add("kvsname", kvsname_).add("key", key);
        send(ask);
        pmi1::Message reply = receive("get_result");
        if (reply.find_int("rc").value_or(-1) != 0)
            fail("bootstrap: key '{}' is not in the key-value store of job {} (reply '{}'); "
                 "check that some rank put it before the last fence",
                 key, kvsname_, trimmed(reply.format()));
        auto value = reply.find("value");
        if (!value)
            fail("bootstrap: {} answered get of '{}' without a value: '{}'", origin_, key,
                 trimmed(reply.format()));
        return std::string(*value);
    }

    std::size_t max_value_length() const override { return value_max_; }

    void fence() override { request(pmi1::Message("barrier_in"), "barrier_out"); }

    void abort(int exit_code, std::string_view message) override {
        log::error("aborting the job (exit code {}): {}", exit_code, message);
        if (fd_ < 0 || !pmi1::write_all(fd_, pmi1::Message("abort").add("exitcode", exit_code).format()))
            return;
        // The process manager ends us; Hydra and sirun do not reply. Waiting
        // (bounded, in case it ignores the request) keeps this rank from
        // exiting first and being reported as a plain failure.
        constexpr int kWaitMs = 10'000;
        pollfd entry{fd_, POLLIN, 0};
        while (::poll(&entry, 1, kWaitMs) < 0 && errno == EINTR) {
        }
    }

    void finalize() override {
        if (fd_ < 0) return;
        request(pmi1::Message("finalize"), "finalize_ack");
        ::close(fd_);
        fd_ = -1;
    }

private:
    static std::string trimmed(std::string line) {
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
        return line;
    }

    std::size_t read_max(const pmi1::Message& maxes, std::string_view key) const {
        auto value = maxes.find_int(key);
        if (!value || *value < 2)
            fail("bootstrap: {} answered get_maxes without a valid {}: '{}'", origin_, key,
                 trimmed(maxes.format()));
        return static_cast<std::size_t>(*value);
    }

    void send(const pmi1::Message& message) {
        if (fd_ < 0) fail("bootstrap: PMI command after finalize: '{}'", trimmed(message.format()));
        if (!pmi1::write_all(fd_, message.format()))
            fail("bootstrap: cannot send '{}' to {}: {}; check that the process manager is "
                 "still running",
                 trimmed(message.format()), origin_, errno_message("write", errno));
        last_sent_ = trimmed(message.format());
    }

    pmi1::Message receive(std::string_view expected) {
        for (;;) {
            if (auto line = buffer_.take_line()) {
                auto message = pmi1::parse_message(*line);
                if (!message)
                    fail("bootstrap: {} sent a line that is not PMI-1 after '{}': '{}'", origin_,
                         last_sent_, *line);
                if (message->command() != expected)
                    fail("bootstrap: {} answered '{}' with '{}' (expected cmd={})", origin_,
                         last_sent_, *line, expected);
                return std::move(*message);
            }
            if (buffer_.overflowed())
                fail("bootstrap: {} sent more than {} bytes without a newline after '{}'",
                     origin_, pmi1::LineBuffer::kMaxLine, last_sent_);
            switch (buffer_.fill_from(fd_)) {
                case pmi1::LineBuffer::Fill::data: break;
                case pmi1::LineBuffer::Fill::would_block: {
                    pollfd entry{fd_, POLLIN, 0};
                    ::poll(&entry, 1, -1);
                    break;
                }
                case pmi1::LineBuffer::Fill::end_of_file:
                    fail("bootstrap: {} closed the connection while this rank waited for the "
                         "reply to '{}'; the job is probably being ended",
                         origin_, last_sent_);
                case pmi1::LineBuffer::Fill::error:
                    fail("bootstrap: waiting for the reply to '{}' from {}: {}", last_sent_,
                         origin_, errno_message("read", errno));
            }
        }
    }

    void check_rc(const pmi1::Message& reply, std::string_view what) {
        // Hydra leaves rc out of some replies (maxes, my_kvsname); absent means success.
        auto rc_text = reply.find("rc");
        if (!rc_text) return;
        if (reply.find_int("rc") == 0) return;
        fail("bootstrap: {} refused '{}': '{}'; check that the launcher speaks PMI-1 and that "
             "this program belongs to the job it started",
             origin_, what, trimmed(reply.format()));
    }

    pmi1::Message request(const pmi1::Message& message, std::string_view expected) {
        send(message);
        pmi1::Message reply = receive(expected);
        check_rc(reply, last_sent_);
        return reply;
    }

    int fd_;
    std::string origin_;
    pmi1::LineBuffer buffer_;
    std::string last_sent_;
    int rank_ = -1;
    int size_ = -1;
    std::size_t key_max_ = 64;
    std::size_t value_max_ = 1024;
    std::string kvsname_;
    std::string job_id_;
};

// The fd must stay blocking for the request/reply loop, and must not leak into
// processes this rank starts later (helpers), which would keep the socket open.
void prepare_fd(int fd) {
    int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0)
        fail("bootstrap: PMI_FD={} is not an open file descriptor ({}); {}", fd,
             errno_message("fcntl", errno), kLauncherHint);
    if ((flags & O_NONBLOCK) != 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int connect_tcp(const std::string& port_text) {
    std::size_t colon = port_text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == port_text.size())
        fail("bootstrap: PMI_PORT='{}' is not host:port; {}", port_text, kLauncherHint);
    std::string host = port_text.substr(0, colon);
    std::string port = port_text.substr(colon + 1);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
        fail("bootstrap: cannot resolve PMI_PORT='{}': {}", port_text, ::gai_strerror(rc));
    int last_errno = 0;
    int fd = -1;
    for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            last_errno = errno;
            continue;
        }
        int rc;
        do {
            rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
        } while (rc < 0 && errno == EINTR);
        if (rc < 0) {
            last_errno = errno;
            ::close(fd);
            fd = -1;
        }
    }
    ::freeaddrinfo(found);
    if (fd < 0)
        fail("bootstrap: cannot connect to the process manager at PMI_PORT='{}' ({}); check "
             "that mpiexec is still running and reachable from this host",
             port_text, errno_message("connect", last_errno));
    return fd;
}

}  // namespace

std::unique_ptr<Bootstrap> connect() {
    if (auto fd_text = environment("PMI_FD")) {
        int fd = parse_env_int("PMI_FD", *fd_text, 0);
        std::string origin = fmt::format("the process manager (PMI_FD={})", fd);
        int rank = require_env_int("PMI_RANK", "PMI_FD", 0);
        int size = require_env_int("PMI_SIZE", "PMI_FD", 1);
        if (rank >= size)
            fail("bootstrap: PMI_RANK={} is not below PMI_SIZE={}; {}", rank, size, kLauncherHint);
        prepare_fd(fd);
        auto wire = std::make_unique<WireBootstrap>(fd, origin);
        wire->set_identity(rank, size);
        wire->handshake();
        return wire;
    }
    if (auto port_text = environment("PMI_PORT")) {
        int pmi_id = require_env_int("PMI_ID", "PMI_PORT", 0);
        std::string origin = fmt::format("the process manager (PMI_PORT={})", *port_text);
        auto wire = std::make_unique<WireBootstrap>(connect_tcp(*port_text), origin);
        wire->exchange_initack(pmi_id);
        wire->handshake();
        return wire;
    }
    // srun without --mpi=pmi2 starts every task with no process manager to
    // ask: each would run alone, and the job would look fine.
    if (auto tasks = environment("SLURM_STEP_NUM_TASKS"); tasks && std::atoi(tasks->c_str()) > 1)
        log::warn("bootstrap: Slurm started this process as one of {} tasks "
                  "(SLURM_STEP_NUM_TASKS), but no process manager answers (no PMI_FD or "
                  "PMI_PORT), so it runs alone as a singleton; start the job with "
                  "`srun --mpi=pmi2` (Slurm's pmi2 plugin serves the PMI-1 protocol this "
                  "runtime speaks)",
                  *tasks);
    return std::make_unique<SingletonBootstrap>();
}

}  // namespace si::bootstrap
