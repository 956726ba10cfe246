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

// The MPI functions `program` calls that `library` lacks, sorted: C names and
// Fortran's (mpi_send_, mpi_send_f08_).
std::vector<std::string> missing_mpi_functions(const std::string& program,
                                               const std::string& library);
// The same from the two symbol lists.
std::vector<std::string> missing_among(const std::vector<std::string>& wanted,
                                       const std::vector<std::string>& offered);

// What the missing functions say about the program's build ("" when nothing
// more than their names): entry points of Fortran 2008's mpi_f08 module.
std::string missing_hint(const std::vector<std::string>& missing);

// Why the program cannot run on this runtime through the MPICH ABI (it was
// linked against another MPI's library), or an empty string.
std::string abi_mismatch(const std::vector<std::string>& needed);

}  // namespace si::sirun
