// SI_TRACE: timestamped events of the rendezvous path, so that anyone can
// see which stage of a transfer eats the overlap (sibench draws them).
//
// Each process (rank or helper) records into a buffer allocated once at
// start-up; recording is a relaxed fetch_add and four stores, with no lock
// and no allocation, and does nothing but test one flag when tracing is off.
// The buffer is written as CSV when the process ends its part (MPI_Finalize,
// a helper's exit): <SI_TRACE>.<process>, rows "t_ns,process,thread,event,
// peer,id,value". A full buffer drops further events and says how many.
//
// Times are CLOCK_MONOTONIC nanoseconds (base/clock.hpp), which every process
// of a host reads alike, so that files of one host line up.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace si::trace {

// The stages, in the order a receiver-first rendezvous passes through them.
enum class Event : std::uint8_t {
    recv_posted,        // a nonblocking receive asked for help (IRB entry); id = request
    rts_sent,           // sender: RTS left; peer = receiver, id = send request, value = bytes
    helper_matched,     // helper (or a rank blocked in MPI): an RTS in rank `peer`'s
                        // ICB matches its IRB
    wake_issued,        // ... and it wakes rank `peer`'s interrupt thread; value = the
                        // CPU it binds the thread to, or -1
    interrupt_running,  // interrupt thread: running after a wake-up; value = its CPU
    read_issued,        // receiver: RDMA Read issued; peer = sender, id = send request,
                        // value = bytes
    read_done,          // receiver: the data has landed; same ids
    write_issued,       // sender: writes the data into the receive buffer itself
                        // (direct delivery); peer = receiver, id = send request,
                        // value = bytes
    write_done,         // ... and it has landed
    fin_seen,           // sender: FIN arrived; id = send request
    wait_entered,       // application thread: entered a blocking wait
    wait_left,          // ... and left it
};
const char* event_name(Event event);

// Who records: the application's threads, the interrupt thread, a helper.
enum class Thread : std::uint8_t { application, interrupt, helper };
// The calling thread's role (application unless set).
void set_thread_role(Thread role);

namespace detail {
extern std::atomic<bool> enabled;
void append(Event event, int peer, std::uint64_t id, std::int64_t value);
}  // namespace detail

// Starts recording for process `process` ("rank3", "helper0") into a buffer of
// `capacity` events, to be written to <path>.<process>; replaces what a
// forked parent had recorded.
void start(const std::string& path, std::string_view process, std::size_t capacity);
// In a child just forked from a tracing process: records afresh as `process`
// (same path and capacity); nothing if the parent did not trace.
void restart_as(std::string_view process);
// Writes the file and stops; returns false (after saying why on stderr) if
// the file cannot be written.
bool finish();

inline void record(Event event, int peer = -1, std::uint64_t id = 0, std::int64_t value = 0) {
    if (detail::enabled.load(std::memory_order_relaxed)) detail::append(event, peer, id, value);
}

}  // namespace si::trace
