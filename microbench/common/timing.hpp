// The timing loop. A benchmark hands over one repetition as a callable; the loop owns
// the warm-up, the synchronisation before timing, the clock and the batching, so that
// every benchmark measures the same way.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <span>
#include <vector>

#include "common/options.hpp"

namespace si::bench {

// A sample must last this many clock reads at least, so that reading the clock costs
// under 0.5% of it. On a KVM guest MPI_Wtime costs ~50 ns while a shared-memory round
// trip lasts ~300 ns: timed one by one, round trips would be over-reported by ~10%.
inline constexpr double kClockReadsPerSample = 200;

struct Samples {
    std::vector<double> seconds;  // per repetition: one sample's time divided by batch
    int batch = 1;                // repetitions per sample
};

// Seconds per MPI_Wtime call, measured once per process.
double clock_cost();

// Collective: the batch that makes a sample of repetitions lasting `repetition`
// seconds long enough, decided by rank 0 so that every rank runs as many.
int choose_batch(MPI_Comm comm, double repetition);

// Runs the warm-up (at least one repetition: its second half estimates how long a
// repetition lasts), a barrier, then schedule.iterations samples of `batch`
// repetitions. With batch 1 each sample is one repetition and the tail shows; with
// more, min and max describe batch means.
template <typename Body>
Samples time_samples(MPI_Comm comm, const Schedule& schedule, Body&& body) {
    const int probes = std::max(1, schedule.warmup / 2);
    for (int i = probes; i < schedule.warmup; ++i) body();
    const double probe_start = MPI_Wtime();
    for (int i = 0; i < probes; ++i) body();
    const double repetition = (MPI_Wtime() - probe_start) / probes;

    Samples samples;
    samples.batch = schedule.batch > 0 ? schedule.batch : choose_batch(comm, repetition);
    samples.seconds.resize(static_cast<std::size_t>(schedule.iterations));
    // After the warm-up, so that a rank still warming up does not delay the other's
    // first timed repetitions.
    MPI_Barrier(comm);
    for (double& sample : samples.seconds) {
        const double start = MPI_Wtime();
        for (int i = 0; i < samples.batch; ++i) body();
        sample = (MPI_Wtime() - start) / samples.batch;
    }
    return samples;
}

// The thesis' collective template (Fig. 4.11): every repetition starts after an
// MPI_Barrier and is timed alone, so that consecutive collectives cannot pipeline (a
// batch of back-to-back calls measures their throughput, not one call's duration).
// Runs `warmup` untimed repetitions, then returns this rank's seconds for each of
// `iterations` timed ones; max_over_ranks turns them into the repetitions' durations.
// Reading the clock twice per repetition costs ~0.1 us on the KVM guest, a few per
// cent of the shortest collectives (a barrier of 4 ranks) and nothing above.
template <typename Body>
std::vector<double> time_synchronized(MPI_Comm comm, int warmup, int iterations, Body&& body) {
    std::vector<double> seconds(static_cast<std::size_t>(std::max(0, iterations)));
    for (int i = -warmup; i < iterations; ++i) {
        MPI_Barrier(comm);
        const double start = MPI_Wtime();
        body();
        const double elapsed = MPI_Wtime() - start;
        if (i >= 0) seconds[static_cast<std::size_t>(i)] = elapsed;
    }
    return seconds;
}

// Sample by sample, the maximum over the ranks of `comm` (collective; every rank
// passes as many samples). A collective operation lasts as long as its slowest rank.
std::vector<double> max_over_ranks(MPI_Comm comm, std::span<const double> samples);

}  // namespace si::bench
