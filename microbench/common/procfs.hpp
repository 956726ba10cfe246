// What /proc says about this process and the processes it forked (an MPI
// library's helpers, such as SmartInterrupts'), for the benchmarks that report
// memory and CPU time. Linux only; every function returns -1 (or nothing) when
// /proc does not say.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace si::bench {

// The value of the line "<key> <n> kB" of a /proc file, in KiB, or -1.
double proc_kib(const std::string& path, const std::string& key);

// The children of this process, from /proc/self/task/<tid>/children.
std::vector<std::string> child_pids();

// Proportional set size (Pss in /proc/<pid>/smaps_rollup) in KiB: a page shared
// by n processes counts 1/n in each. pid "self" is this process.
double proportional_kib(const std::string& pid);

// User plus system CPU time of a process so far (/proc/<pid>/stat), in seconds.
double cpu_seconds(const std::string& pid);

// Sums of the two above over child_pids(); a child that ended counts nothing.
double children_proportional_kib();
double children_cpu_seconds();

// Collective: this rank's Pss plus its share of the processes the ranks forked
// (an MPI library's helpers: their Pss summed over `comm`, divided by its
// ranks). Summed over the ranks it is what the job costs.
double footprint_kib(MPI_Comm comm);

}  // namespace si::bench
