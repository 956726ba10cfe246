#include "base/trace.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "base/clock.hpp"
#include "base/log.hpp"

namespace si::trace {

namespace {

struct Record {
    std::uint64_t t_ns;
    std::uint64_t id;
    std::int64_t value;
    std::int32_t peer;
    Event event;
    Thread thread;
};

// Records live in a private mapping that a forked helper does not inherit
// (MADV_DONTFORK): shared copy-on-write with the helper, every page of it would
// fault again in the rank at its next record, a page fault per 128 events in
// the middle of the measured loop (16 KiB latency 2.3 -> 10 us on a VM).
struct Buffer {
    std::string path;
    std::string process;
    Record* records = nullptr;
    std::size_t capacity = 0;
    std::atomic<std::size_t> next{0};

    ~Buffer() {
        if (records != nullptr) ::munmap(records, capacity * sizeof(Record));
    }
};

std::unique_ptr<Buffer> g_buffer;
thread_local Thread t_role = Thread::application;

const char* thread_name(Thread thread) {
    switch (thread) {
        case Thread::application:
            return "application";
        case Thread::interrupt:
            return "interrupt";
        case Thread::helper:
            return "helper";
    }
    return "?";
}

}  // namespace

namespace detail {

std::atomic<bool> enabled{false};

void append(Event event, int peer, std::uint64_t id, std::int64_t value) {
    Buffer& buffer = *g_buffer;
    const std::size_t slot = buffer.next.fetch_add(1, std::memory_order_relaxed);
    if (slot >= buffer.capacity) return;
    buffer.records[slot] = Record{monotonic_ns(), id, value, peer, event, t_role};
}

}  // namespace detail

const char* event_name(Event event) {
    switch (event) {
        case Event::recv_posted:
            return "recv_posted";
        case Event::rts_sent:
            return "rts_sent";
        case Event::helper_matched:
            return "helper_matched";
        case Event::wake_issued:
            return "wake_issued";
        case Event::interrupt_running:
            return "interrupt_running";
        case Event::read_issued:
            return "read_issued";
        case Event::read_done:
            return "read_done";
        case Event::write_issued:
            return "write_issued";
        case Event::write_done:
            return "write_done";
        case Event::fin_seen:
            return "fin_seen";
        case Event::wait_entered:
            return "wait_entered";
        case Event::wait_left:
            return "wait_left";
    }
    return "?";
}

void set_thread_role(Thread role) {
    t_role = role;
}

namespace {

// Records touched at start (all of them for a rank, the first few thousand for a
// helper), so that recording them faults no page in.
void start_buffer(const std::string& path, std::string_view process, std::size_t capacity,
                  std::size_t prefault) {
    detail::enabled.store(false);
    auto buffer = std::make_unique<Buffer>();
    buffer->path = path;
    buffer->process = std::string(process);
    const std::size_t bytes = capacity * sizeof(Record);
    void* memory =
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        log::warn("SI_TRACE: cannot map {} bytes for {}; not tracing", bytes, buffer->process);
        return;
    }
    ::madvise(memory, bytes, MADV_DONTFORK);
    buffer->records = static_cast<Record*>(memory);
    buffer->capacity = capacity;
    for (std::size_t i = 0; i < std::min(prefault, capacity); ++i) buffer->records[i] = Record{};
    g_buffer = std::move(buffer);
    detail::enabled.store(true);
}

}  // namespace

void start(const std::string& path, std::string_view process, std::size_t capacity) {
    start_buffer(path, process, capacity, capacity);
}

void restart_as(std::string_view process) {
    if (!detail::enabled.load() || !g_buffer) return;
    // Not mapped in this child (MADV_DONTFORK): disowned, never unmapped, or
    // the unmap could hit the new buffer placed at the same address.
    g_buffer->records = nullptr;
    // A helper records a few events per transfer, and touching 8 MiB first
    // would cost it tens of milliseconds of CPU on a virtual machine, during
    // which a helper at SCHED_IDLE serves nobody: beyond its first 128 KiB,
    // pages fault in as used.
    constexpr std::size_t kHelperPrefault = 4096;
    const std::string path = g_buffer->path;
    start_buffer(path, process, g_buffer->capacity, kHelperPrefault);
}

bool finish() {
    if (!detail::enabled.exchange(false) || !g_buffer) return true;
    Buffer& buffer = *g_buffer;
    const std::size_t recorded = buffer.next.load();
    const std::size_t kept = std::min(recorded, buffer.capacity);
    const std::string file = buffer.path + "." + buffer.process;
    std::FILE* out = std::fopen(file.c_str(), "w");
    if (out == nullptr) {
        log::warn("SI_TRACE: cannot write {}", file);
        return false;
    }
    std::fprintf(out, "t_ns,process,thread,event,peer,id,value\n");
    for (std::size_t i = 0; i < kept; ++i) {
        const Record& r = buffer.records[i];
        std::fprintf(out, "%llu,%s,%s,%s,%d,%llu,%lld\n", static_cast<unsigned long long>(r.t_ns),
                     buffer.process.c_str(), thread_name(r.thread), event_name(r.event), r.peer,
                     static_cast<unsigned long long>(r.id), static_cast<long long>(r.value));
    }
    const bool ok = std::fclose(out) == 0;
    if (recorded > kept)
        log::warn("SI_TRACE: {} kept the first {} events and dropped {}", file, kept,
                  recorded - kept);
    g_buffer.reset();
    return ok;
}

}  // namespace si::trace
