#include "base/trace.hpp"

#include <cstdio>
#include <memory>
#include <vector>

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

struct Buffer {
    std::string path;
    std::string process;
    std::vector<Record> records;
    std::atomic<std::size_t> next{0};
};

std::unique_ptr<Buffer> g_buffer;
thread_local Thread t_role = Thread::application;

const char* thread_name(Thread thread) {
    switch (thread) {
        case Thread::application: return "application";
        case Thread::interrupt: return "interrupt";
        case Thread::helper: return "helper";
    }
    return "?";
}

}  // namespace

namespace detail {

std::atomic<bool> enabled{false};

void append(Event event, int peer, std::uint64_t id, std::int64_t value) {
    Buffer& buffer = *g_buffer;
    const std::size_t slot = buffer.next.fetch_add(1, std::memory_order_relaxed);
    if (slot >= buffer.records.size()) return;
    buffer.records[slot] = Record{monotonic_ns(), id, value, peer, event, t_role};
}

}  // namespace detail

const char* event_name(Event event) {
    switch (event) {
        case Event::recv_posted: return "recv_posted";
        case Event::rts_sent: return "rts_sent";
        case Event::helper_matched: return "helper_matched";
        case Event::wake_issued: return "wake_issued";
        case Event::interrupt_running: return "interrupt_running";
        case Event::read_issued: return "read_issued";
        case Event::read_done: return "read_done";
        case Event::write_issued: return "write_issued";
        case Event::write_done: return "write_done";
        case Event::fin_seen: return "fin_seen";
        case Event::wait_entered: return "wait_entered";
        case Event::wait_left: return "wait_left";
    }
    return "?";
}

void set_thread_role(Thread role) { t_role = role; }

void start(const std::string& path, std::string_view process, std::size_t capacity) {
    detail::enabled.store(false);
    auto buffer = std::make_unique<Buffer>();
    buffer->path = path;
    buffer->process = std::string(process);
    // Touched now, so that recording never faults a page in.
    buffer->records.assign(capacity, Record{});
    g_buffer = std::move(buffer);
    detail::enabled.store(true);
}

void restart_as(std::string_view process) {
    if (!detail::enabled.load() || !g_buffer) return;
    const std::string path = g_buffer->path;
    start(path, process, g_buffer->records.size());
}

bool finish() {
    if (!detail::enabled.exchange(false) || !g_buffer) return true;
    Buffer& buffer = *g_buffer;
    const std::size_t recorded = buffer.next.load();
    const std::size_t kept = std::min(recorded, buffer.records.size());
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
