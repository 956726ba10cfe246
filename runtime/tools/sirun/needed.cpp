#include "sirun/needed.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

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

}  // namespace

std::vector<std::string> needed_libraries(const std::string& program_path) {
    std::ifstream file(program_path, std::ios::binary);
    if (!file) fail("cannot read {}", program_path);
    const std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    Elf64_Ehdr header;
    if (!read_at(image, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64)
        return {};
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

std::string abi_mismatch(const std::vector<std::string>& needed) {
    for (const std::string& name : needed)
        if (name.starts_with("libmpi.so.") && name != "libmpi.so.12")
            return name + " (Open MPI's library): this runtime has MPICH's ABI, not Open MPI's; "
                          "rebuild the program with mpicc.mpich or sicc, or run it with "
                          "mpirun.openmpi";
    return {};
}

}  // namespace si::sirun
