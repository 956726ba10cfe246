#include "common/work.hpp"

#include <algorithm>
#include <chrono>

namespace si::bench {

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

double Work::spin(std::uint64_t iterations) {
    // A dependent floating-point chain: it cannot be vectorised away or hoisted,
    // and its speed does not depend on memory.
    volatile double seed = 1.0;
    double x = seed;
    for (std::uint64_t i = 0; i < iterations; ++i) x = x * 1.0000001 + 1e-9;
    return x;
}

Work::Work() {
    // Best of several rounds: the fastest is the one not interrupted.
    std::uint64_t iterations = 1 << 16;
    double best = 0;
    for (int round = 0; round < 8; ++round) {
        const double start = now();
        volatile double sink = spin(iterations);
        (void)sink;
        const double elapsed = now() - start;
        if (elapsed < 2e-3) {
            iterations *= 4;
            --round;
            continue;
        }
        best = std::max(best, static_cast<double>(iterations) / elapsed);
    }
    per_second_ = best;
}

void Work::run(double seconds) const {
    if (seconds <= 0) return;
    volatile double sink = spin(static_cast<std::uint64_t>(seconds * per_second_));
    (void)sink;
}

}  // namespace si::bench
