// machine.txt: what a result directory's numbers depend on besides the code.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace si::harness {

// `key: value` lines: host, CPU model, cores, memory, kernel, compiler, commit,
// MPICH version, Open MPI version, gnuplot version, load average, date.
std::vector<std::pair<std::string, std::string>> describe_machine(const std::string& commit);

// `git describe --always --dirty` of the source tree sibench was built from,
// SI_BENCH_COMMIT when set, else "unknown".
std::string source_commit();

std::string host_name();  // short host name

void write_key_values(const std::string& path,
                      const std::vector<std::pair<std::string, std::string>>& entries);

}  // namespace si::harness
