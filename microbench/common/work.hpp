// Synthetic work: a compute loop calibrated once per process, so that a
// benchmark's "work" is computation the CPU really does (not a sleep, which
// would leave the core to a progress thread for free) and does not read the
// clock while it runs.
#pragma once

#include <cstdint>

namespace si::bench {

class Work {
  public:
    // Measures the loop's speed on this core (a few tens of milliseconds).
    Work();
    // Computes for about `seconds`.
    void run(double seconds) const;
    [[nodiscard]] double iterations_per_second() const { return per_second_; }

  private:
    static double spin(std::uint64_t iterations);
    double per_second_ = 0;
};

}  // namespace si::bench
