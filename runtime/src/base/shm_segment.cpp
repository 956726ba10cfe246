#include "base/shm_segment.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include "base/error.hpp"

namespace si {

namespace {

// Names still linked, readable from a signal handler: fixed-size slots, a
// slot's name written before it is marked used (release) and read after
// (acquire). Threads of MPI_THREAD_MULTIPLE create segments at once (a
// communicator's node collectives each), so taking and clearing slots is
// serialised; the handler takes no lock.
constexpr std::size_t kMaxLinked = 16;
constexpr std::size_t kNameBytes = 128;
struct LinkedName {
    std::atomic<bool> used{false};
    char name[kNameBytes];
};
std::array<LinkedName, kMaxLinked> g_linked;
std::mutex g_linked_mutex;

void remember(const std::string& name) {
    if (name.size() >= kNameBytes) return;
    const std::lock_guard lock(g_linked_mutex);
    for (LinkedName& slot : g_linked) {
        if (slot.used.load(std::memory_order_relaxed)) continue;
        std::memcpy(slot.name, name.c_str(), name.size() + 1);
        slot.used.store(true, std::memory_order_release);
        return;
    }
}

void forget(const std::string& name) {
    const std::lock_guard lock(g_linked_mutex);
    for (LinkedName& slot : g_linked)
        if (slot.used.load(std::memory_order_relaxed) && name == slot.name)
            slot.used.store(false, std::memory_order_relaxed);
}

constexpr std::array kFatalSignals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                                      SIGTERM, SIGINT, SIGHUP, SIGQUIT};
struct sigaction g_previous[kFatalSignals.size()];

void cleanup_and_chain(int signo, siginfo_t* info, void* context) {
    for (LinkedName& slot : g_linked)
        if (slot.used.load(std::memory_order_acquire)) ::shm_unlink(slot.name);
    for (std::size_t i = 0; i < kFatalSignals.size(); ++i) {
        if (kFatalSignals[i] != signo) continue;
        const struct sigaction& previous = g_previous[i];
        if (previous.sa_flags & SA_SIGINFO) {
            previous.sa_sigaction(signo, info, context);
            return;
        }
        if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
            previous.sa_handler(signo);
            return;
        }
        // Default action: restore it and re-raise so the exit status tells the signal.
        ::sigaction(signo, &previous, nullptr);
        ::raise(signo);
        return;
    }
}

}  // namespace

void install_segment_cleanup_handlers() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (std::size_t i = 0; i < kFatalSignals.size(); ++i) {
            struct sigaction action {};
            action.sa_sigaction = cleanup_and_chain;
            action.sa_flags = SA_SIGINFO | SA_RESETHAND;
            sigemptyset(&action.sa_mask);
            ::sigaction(kFatalSignals[i], &action, &g_previous[i]);
        }
    });
}

std::string SharedSegment::name_for(const std::string& job_id, const std::string& what) {
    return "/si-" + job_id + "-" + what;
}

SharedSegment SharedSegment::create(const std::string& name, std::size_t bytes) {
    install_segment_cleanup_handlers();
    int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) fail("{}", errno_message("shm_open(" + name + ") for creation", errno));
    SharedSegment segment;
    segment.name_ = name;
    segment.linked_ = true;
    remember(name);
    // Reserve the pages now: a full /dev/shm then fails here, with a message,
    // instead of killing a rank with SIGBUS in the middle of a transfer.
    int err = ::ftruncate(fd, static_cast<off_t>(bytes)) == 0 ? ::posix_fallocate(fd, 0, static_cast<off_t>(bytes)) : errno;
    if (err != 0) {
        ::close(fd);
        segment.unlink();
        fail("{} (is /dev/shm large enough? {} bytes are needed)",
             errno_message("reserving shared memory " + name, err), bytes);
    }
    void* data = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    err = errno;
    ::close(fd);
    if (data == MAP_FAILED) {
        segment.unlink();
        fail("{}", errno_message("mmap of " + name, err));
    }
    segment.data_ = data;
    segment.bytes_ = bytes;
    return segment;
}

SharedSegment SharedSegment::open(const std::string& name) {
    install_segment_cleanup_handlers();
    int fd = ::shm_open(name.c_str(), O_RDWR, 0600);
    if (fd < 0) fail("{}", errno_message("shm_open(" + name + ")", errno));
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        int err = errno;
        ::close(fd);
        fail("{}", errno_message("fstat of " + name, err));
    }
    const auto bytes = static_cast<std::size_t>(info.st_size);
    void* data = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    ::close(fd);
    if (data == MAP_FAILED) fail("{}", errno_message("mmap of " + name, err));
    SharedSegment segment;
    segment.name_ = name;
    segment.data_ = data;
    segment.bytes_ = bytes;
    return segment;
}

void SharedSegment::unlink() {
    if (!linked_) return;
    ::shm_unlink(name_.c_str());
    forget(name_);
    linked_ = false;
}

void SharedSegment::reset() noexcept {
    unlink();
    if (data_ != nullptr) ::munmap(data_, bytes_);
    data_ = nullptr;
    bytes_ = 0;
}

SharedSegment::SharedSegment(SharedSegment&& other) noexcept { *this = std::move(other); }

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
    if (this != &other) {
        reset();
        name_ = std::move(other.name_);
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
        linked_ = std::exchange(other.linked_, false);
    }
    return *this;
}

SharedSegment::~SharedSegment() { reset(); }

}  // namespace si
