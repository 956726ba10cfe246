#include "progress/progress_thread.hpp"

#include <sched.h>

namespace si::progress {

ProgressThread::ProgressThread(p2p::Engine& engine) : engine_(engine), thread_([this] { run(); }) {}

ProgressThread::~ProgressThread() {
    stop_.store(true, std::memory_order_relaxed);
    thread_.join();
}

void ProgressThread::run() {
    p2p::ProgressLock& lock = engine_.lock();
    while (!stop_.load(std::memory_order_relaxed)) {
        int events = 0;
        if (!lock.wanted() && lock.try_lock_in_background()) {
            events = engine_.progress_in_background();
            lock.unlock_background();
        }
        // After an idle pass, give the core away: the rank's own thread,
        // woken from a sleep in MPI on this core, runs now instead of after
        // this thread's time slice (milliseconds), and finds the lock free.
        if (events == 0) ::sched_yield();
    }
}

}  // namespace si::progress
