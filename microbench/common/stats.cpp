#include "common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace si::bench {

Summary summarize(std::span<const double> values) {
    Summary s;
    if (values.empty()) return s;
    if (std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); })) {
        const double missing = std::numeric_limits<double>::quiet_NaN();
        return {missing, missing, missing, missing, values.size()};
    }
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    s.count = n;
    s.min = sorted.front();
    s.max = sorted.back();
    s.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
    return s;
}

}  // namespace si::bench
