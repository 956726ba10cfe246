#include "sirun/needed.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include "base/error.hpp"

namespace si::sirun {

namespace {

// A struct of type T at `offset` of `image`, or false if it does not fit.
template <typename T>
bool read_at(const std::string& image, std::uint64_t offset, T& out) {
    if (offset > image.size() || image.size() - offset < sizeof(T)) return false;
    std::memcpy(&out, image.data() + offset, sizeof(T));
    return true;
}

// The file offset of virtual address `address`, through the loadable segments.
bool file_offset(const std::string& image, const Elf64_Ehdr& header, std::uint64_t address,
                 std::uint64_t& offset) {
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        Elf64_Phdr segment;
        if (!read_at(image, header.e_phoff + std::uint64_t{i} * header.e_phentsize, segment))
            return false;
        if (segment.p_type == PT_LOAD && address >= segment.p_vaddr &&
            address < segment.p_vaddr + segment.p_filesz) {
            offset = segment.p_offset + (address - segment.p_vaddr);
            return true;
        }
    }
    return false;
}

// The whole file, and its ELF header if it is a 64-bit ELF file.
std::string read_image(const std::string& path, Elf64_Ehdr& header, bool& elf64) {
    std::ifstream file(path, std::ios::binary);
    if (!file) fail("cannot read {}", path);
    std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    elf64 = read_at(image, 0, header) && std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 &&
            header.e_ident[EI_CLASS] == ELFCLASS64;
    return image;
}

}  // namespace

std::vector<std::string> needed_libraries(const std::string& program_path) {
    Elf64_Ehdr header;
    bool elf64 = false;
    const std::string image = read_image(program_path, header, elf64);
    if (!elf64) return {};
    // The dynamic section, and in it the string table's address and the names' offsets.
    std::uint64_t dynamic = 0, dynamic_bytes = 0;
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        Elf64_Phdr segment;
        if (!read_at(image, header.e_phoff + std::uint64_t{i} * header.e_phentsize, segment))
            return {};
        if (segment.p_type == PT_DYNAMIC) {
            dynamic = segment.p_offset;
            dynamic_bytes = segment.p_filesz;
        }
    }
    std::uint64_t strings_address = 0;
    std::vector<std::uint64_t> name_offsets;
    for (std::uint64_t at = dynamic; at + sizeof(Elf64_Dyn) <= dynamic + dynamic_bytes;
         at += sizeof(Elf64_Dyn)) {
        Elf64_Dyn entry;
        if (!read_at(image, at, entry) || entry.d_tag == DT_NULL) break;
        if (entry.d_tag == DT_STRTAB) strings_address = entry.d_un.d_ptr;
        if (entry.d_tag == DT_NEEDED) name_offsets.push_back(entry.d_un.d_val);
    }
    std::uint64_t strings = 0;
    if (name_offsets.empty() || !file_offset(image, header, strings_address, strings)) return {};
    std::vector<std::string> names;
    for (const std::uint64_t name : name_offsets) {
        if (strings + name >= image.size()) continue;
        const char* begin = image.data() + strings + name;
        names.emplace_back(begin, strnlen(begin, image.size() - (strings + name)));
    }
    return names;
}

std::vector<std::string> dynamic_symbols(const std::string& path, bool undefined) {
    Elf64_Ehdr header;
    bool elf64 = false;
    const std::string image = read_image(path, header, elf64);
    if (!elf64) return {};
    std::vector<std::string> names;
    for (unsigned i = 0; i < header.e_shnum; ++i) {
        Elf64_Shdr symbols, strings;
        if (!read_at(image, header.e_shoff + std::uint64_t{i} * header.e_shentsize, symbols) ||
            symbols.sh_type != SHT_DYNSYM || symbols.sh_entsize != sizeof(Elf64_Sym) ||
            !read_at(image, header.e_shoff + std::uint64_t{symbols.sh_link} * header.e_shentsize,
                     strings))
            continue;
        for (std::uint64_t at = symbols.sh_offset;
             at + sizeof(Elf64_Sym) <= symbols.sh_offset + symbols.sh_size;
             at += sizeof(Elf64_Sym)) {
            Elf64_Sym symbol;
            if (!read_at(image, at, symbol) || symbol.st_name == 0) continue;
            if ((symbol.st_shndx == SHN_UNDEF) != undefined) continue;
            const std::uint64_t name = strings.sh_offset + symbol.st_name;
            if (name >= image.size()) continue;
            names.emplace_back(image.data() + name,
                               strnlen(image.data() + name, image.size() - name));
        }
    }
    return names;
}

std::vector<std::string> missing_among(const std::vector<std::string>& wanted,
                                       const std::vector<std::string>& offered) {
    const std::set<std::string> has(offered.begin(), offered.end());
    std::set<std::string> missing;
    // C names, and Fortran's as gfortran mangles them (mpi_send_, mpi_send_f08_).
    for (const std::string& name : wanted)
        if ((name.starts_with("MPI_") || name.starts_with("PMPI_") || name.starts_with("MPIX_") ||
             name.starts_with("mpi_") || name.starts_with("pmpi_")) &&
            !has.contains(name))
            missing.insert(name);
    return {missing.begin(), missing.end()};
}

std::vector<std::string> missing_mpi_functions(const std::string& program,
                                               const std::string& library) {
    return missing_among(dynamic_symbols(program, true), dynamic_symbols(library, false));
}

std::string missing_hint(const std::vector<std::string>& missing) {
    for (const std::string& name : missing)
        if (name.starts_with("mpi_") && name.ends_with("_f08_"))
            return "the program was compiled with the Fortran 2008 module (use mpi_f08), whose "
                   "entry points this runtime does not have; `use mpi` or mpif.h programs run";
    return {};
}

std::string abi_mismatch(const std::vector<std::string>& needed) {
    for (const std::string& name : needed)
        if (name.starts_with("libmpi.so.") && name != "libmpi.so.12")
            return name +
                   " (Open MPI's library): this runtime has MPICH's ABI and the MPI "
                   "standard ABI (libmpi_abi.so.1), not Open MPI's; rebuild the program "
                   "with mpicc.mpich, sicc or sicc-abi, or run it with mpirun.openmpi";
    return {};
}

}  // namespace si::sirun
