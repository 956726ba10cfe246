#include "sirun/needed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace si::sirun {
namespace {

bool names(const std::vector<std::string>& needed, const std::string& library) {
    return std::find(needed.begin(), needed.end(), library) != needed.end();
}

TEST(NeededLibraries, ListsWhatAProgramLinks) {
    // This test links the C++ library and libc dynamically.
    const std::vector<std::string> needed = needed_libraries("/proc/self/exe");
    EXPECT_TRUE(names(needed, "libc.so.6"));
    EXPECT_TRUE(names(needed, "libstdc++.so.6"));
}

TEST(NeededLibraries, NothingForAFileThatIsNotAProgram) {
    EXPECT_TRUE(needed_libraries("/proc/self/status").empty());
    EXPECT_THROW(needed_libraries("/nonexistent/program"), Error);
}

TEST(DynamicSymbols, WhatAProgramImportsAndExports) {
    // This test imports at least the C++ library's functions.
    const std::vector<std::string> imported = dynamic_symbols("/proc/self/exe", true);
    EXPECT_FALSE(imported.empty());
    for (const std::string& name : dynamic_symbols("/proc/self/exe", false))
        EXPECT_FALSE(names(imported, name)) << name << " both imported and exported";
    EXPECT_TRUE(dynamic_symbols("/proc/self/status", true).empty());
    // No MPI function at all: nothing missing.
    EXPECT_TRUE(missing_mpi_functions("/proc/self/exe", "/proc/self/exe").empty());
}

TEST(DynamicSymbols, MissingCAndFortranEntryPoints) {
    const std::vector<std::string> offered = {"MPI_Send", "mpi_send_", "PMPI_Send", "malloc"};
    EXPECT_EQ(missing_among({"MPI_Send", "MPI_Isendrecv", "mpi_send_", "mpi_isendrecv_",
                             "mpi_init_f08_", "mpifcmb5_", "printf", "MPI_Send"},
                            offered),
              (std::vector<std::string>{"MPI_Isendrecv", "mpi_init_f08_", "mpi_isendrecv_"}));
    // A `use mpi_f08` program (its calls end in _f08_) is told why.
    EXPECT_NE(missing_hint({"mpi_comm_rank_f08_", "mpi_init_f08_"}).find("mpi_f08"),
              std::string::npos);
    EXPECT_TRUE(missing_hint({"MPI_Isendrecv", "mpi_isendrecv_"}).empty());
}

TEST(AbiMismatch, OpenMpiIsNamedAndMpichIsNot) {
    EXPECT_EQ(abi_mismatch({"libc.so.6", "libmpich.so.12"}), "");
    EXPECT_EQ(abi_mismatch({"libmpi.so.12"}), "");
    const std::string open_mpi = abi_mismatch({"libmpi.so.40", "libc.so.6"});
    EXPECT_NE(open_mpi.find("libmpi.so.40"), std::string::npos);
    EXPECT_NE(open_mpi.find("Open MPI"), std::string::npos);
}

}  // namespace
}  // namespace si::sirun
