// Benchmark CSVs and results.csv files as sibench reads them back (plots,
// summaries, the regression gate), from a run that was cut off or a file
// edited by hand: every input is read or refused with an exception; none
// may crash the reader.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "results.hpp"

// The reader takes a path: the input goes to an anonymous in-memory file of
// this process, named by its /proc/self/fd path, so nothing is left behind
// (libFuzzer ends without running exit handlers).
static const int g_file = ::memfd_create("si-fuzz-results", 0);
static const std::string g_path = "/proc/self/fd/" + std::to_string(g_file);

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (::ftruncate(g_file, 0) != 0 ||
        ::pwrite(g_file, data, size, 0) != static_cast<ssize_t>(size))
        std::abort();
    try {
        (void)si::harness::read_rows(g_path);
    } catch (const std::exception&) {
    }
    try {
        (void)si::harness::read_runs(g_path);
    } catch (const std::exception&) {
    }
    return 0;
}
