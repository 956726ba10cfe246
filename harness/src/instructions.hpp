// Instructions per operation (microbench/instructions/op_instructions): a study of
// that program counts, on rank 0 under callgrind, the user-space instructions of
// each small operation; its rows are suite "instructions", metric
// instructions_<operation>_<stat>, unit "instructions" (per call; per message for
// the windows). The summary gets one table per study and job size: an operation and
// size per row, a column per configuration, then each of this runtime's
// configurations over MPICH's and over the faster peer's (the fewer instructions of
// MPICH and Open MPI). Method: harness/README.md ("Instructions per operation").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results.hpp"

namespace si::harness {

inline constexpr std::string_view kInstructionsSuite = "instructions";

// A median that far above the least count of its repetitions is mostly rank 0
// polling for a peer (op_instructions says so on stderr too): not a cost of the
// operation but of waiting. Such a cell shows the least count instead, marked: the
// cheapest repetition, the closest to the path without polling.
inline constexpr double kPolledAbove = 1.5;

struct InstructionCell {
    double median = 0;  // the median over the rounds of the runs' medians
    double least = 0;   // the least count of any repetition
    [[nodiscard]] bool polled() const { return median > kPolledAbove * least; }
    // What the table shows and divides: the median, or the least count when polled.
    [[nodiscard]] double shown() const { return polled() ? least : median; }
};

struct InstructionTable {
    std::string study;
    int ranks = 0;
    std::vector<std::string> configs;  // legend order
    // (operation, size) in the benchmark's order of operations, then by size.
    std::vector<std::pair<std::string, std::uint64_t>> rows;
    std::vector<std::vector<std::optional<InstructionCell>>> cells;  // [row][config]
};

// The operation of a metric "instructions_<operation>_<stat>" ("" for others).
std::string instruction_operation(const std::string& metric);

std::vector<InstructionTable> instruction_tables(const std::vector<Row>& rows);

// The tables with the ratio columns (x/mpich, x/peer per simpi-* configuration) and
// a legend; "" without instruction rows.
std::string format_instruction_tables(const std::vector<InstructionTable>& tables);

}  // namespace si::harness
