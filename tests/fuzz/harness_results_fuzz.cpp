// Benchmark CSVs and results.csv files as sibench reads them back (plots,
// summaries, the regression gate), from a run that was cut off or a file
// edited by hand: every input is read or refused with an exception; none
// may crash the reader.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // The reader takes a path: the input goes to a file of this process's own.
    static const std::string path = [] {
        std::string name = "/tmp/si-fuzz-results-" + std::to_string(::getpid()) + ".csv";
        std::atexit([] {
            std::remove(("/tmp/si-fuzz-results-" + std::to_string(::getpid()) + ".csv").c_str());
        });
        return name;
    }();
    if (std::FILE* file = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data, 1, size, file);
        std::fclose(file);
    }
    try {
        (void)si::harness::read_rows(path);
    } catch (const std::exception&) {
    }
    try {
        (void)si::harness::read_runs(path);
    } catch (const std::exception&) {
    }
    return 0;
}
