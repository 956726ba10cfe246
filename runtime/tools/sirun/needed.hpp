// The shared libraries a program names in its dynamic section (DT_NEEDED),
// which tell which MPI library it was linked against.
#pragma once

#include <string>
#include <vector>

namespace si::sirun {

// Empty for a program that is not a 64-bit ELF file or names no library.
// Throws si::Error when the file cannot be read.
std::vector<std::string> needed_libraries(const std::string& program_path);

// The names in a 64-bit ELF file's dynamic symbol table that it leaves to
// other libraries (`undefined`) or offers them (defined ones); empty for any
// other file. Throws si::Error when the file cannot be read.
std::vector<std::string> dynamic_symbols(const std::string& path, bool undefined);

// The MPI functions `program` calls that `library` lacks, sorted.
std::vector<std::string> missing_mpi_functions(const std::string& program,
                                               const std::string& library);

// Why the program cannot run on this runtime through the MPICH ABI (it was
// linked against another MPI's library), or an empty string.
std::string abi_mismatch(const std::vector<std::string>& needed);

}  // namespace si::sirun
