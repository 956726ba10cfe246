#include "progress/progress_thread.hpp"

#include "base/cpu.hpp"

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
        if (!lock.wanted() && lock.try_lock()) {
            events = engine_.progress_locked();
            lock.unlock();
        }
        // After an idle pass, leave the lock alone for a moment so an
        // application thread arriving at the lock finds it free.
        if (events == 0)
            for (int i = 0; i < 32; ++i) cpu_relax();
    }
}

}  // namespace si::progress
