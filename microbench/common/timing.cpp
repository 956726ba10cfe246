#include "common/timing.hpp"

#include <cmath>

namespace si::bench {

double clock_cost() {
    static const double cost = [] {
        // MPI_Wtime is an external call: the compiler cannot drop the reads.
        constexpr int kReads = 10000;
        const double start = MPI_Wtime();
        for (int i = 0; i < kReads; ++i) MPI_Wtime();
        return (MPI_Wtime() - start) / kReads;
    }();
    return cost;
}

int choose_batch(MPI_Comm comm, double repetition) {
    constexpr double kMaxBatch = 1 << 20;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    int batch = 1;
    if (rank == 0) {
        const double wanted = kClockReadsPerSample * clock_cost();
        const double needed = std::ceil(wanted / std::max(repetition, 1e-9));
        batch = static_cast<int>(std::clamp(needed, 1.0, kMaxBatch));
    }
    MPI_Bcast(&batch, 1, MPI_INT, 0, comm);
    return batch;
}

std::vector<double> max_over_ranks(MPI_Comm comm, std::span<const double> samples) {
    std::vector<double> result(samples.size());
    MPI_Allreduce(samples.data(), result.data(), static_cast<int>(samples.size()), MPI_DOUBLE,
                  MPI_MAX, comm);
    return result;
}

}  // namespace si::bench
