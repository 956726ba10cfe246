// Progression mode `thread`: one background thread per rank spins in the
// progress engine, the classic asynchronous-progress baseline. It steps aside
// whenever an application thread wants the progress lock, since a thread
// blocked in MPI drives progress itself.
#pragma once

#include <atomic>
#include <thread>

#include "p2p/engine.hpp"

namespace si::progress {

class ProgressThread {
public:
    explicit ProgressThread(p2p::Engine& engine);
    ~ProgressThread();
    ProgressThread(const ProgressThread&) = delete;
    ProgressThread& operator=(const ProgressThread&) = delete;

private:
    void run();

    p2p::Engine& engine_;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace si::progress
