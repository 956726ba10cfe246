// Statistics over the samples of one measurement.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace si::bench {

struct Summary {
    double min = 0;
    double median = 0;
    double mean = 0;
    double max = 0;
    std::size_t count = 0;
};

// Empty input gives an all-zero summary with count 0; a missing value (NaN)
// among the input makes every statistic NaN (reported as such, never as 0).
Summary summarize(std::span<const double> values);

// Summarizes samples after converting each one (seconds -> microseconds, seconds ->
// MB/s). Converting first matters: a rate reverses the order (the slowest window is
// the lowest bandwidth), and the mean of rates is not the rate of the mean time.
template <typename Convert>
Summary summarize(std::span<const double> samples, Convert&& convert) {
    std::vector<double> values;
    values.reserve(samples.size());
    for (double sample : samples) values.push_back(convert(sample));
    return summarize(values);
}

}  // namespace si::bench
