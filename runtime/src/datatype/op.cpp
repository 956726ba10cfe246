#include "datatype/op.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>

#include <vector>

#include <fmt/format.h>

#include "datatype/handle_bits.hpp"
#include "datatype/handle_table.hpp"
#include "datatype/kernels.hpp"

namespace si::datatype {

namespace {

constexpr int kKind = handle::kind_of(MPI_OP_NULL);
constexpr std::uint32_t kFirstUserSlot = 32;
static_assert(kernels::kOpCount <= static_cast<int>(kFirstUserSlot));

constexpr Op predefined_op(MPI_Op handle, const char* name) {
    return Op{handle, nullptr, true, true, name};
}

constexpr std::array<Op, kernels::kOpCount> make_predefined() {
    std::array<Op, kernels::kOpCount> t{};
    const Op all[] = {
        predefined_op(MPI_MAX, "MPI_MAX"),         predefined_op(MPI_MIN, "MPI_MIN"),
        predefined_op(MPI_SUM, "MPI_SUM"),         predefined_op(MPI_PROD, "MPI_PROD"),
        predefined_op(MPI_LAND, "MPI_LAND"),       predefined_op(MPI_BAND, "MPI_BAND"),
        predefined_op(MPI_LOR, "MPI_LOR"),         predefined_op(MPI_BOR, "MPI_BOR"),
        predefined_op(MPI_LXOR, "MPI_LXOR"),       predefined_op(MPI_BXOR, "MPI_BXOR"),
        predefined_op(MPI_MAXLOC, "MPI_MAXLOC"),   predefined_op(MPI_MINLOC, "MPI_MINLOC"),
        predefined_op(MPI_REPLACE, "MPI_REPLACE"), predefined_op(MPI_NO_OP, "MPI_NO_OP"),
    };
    for (const Op& op : all) t[kernels::op_index(op.handle)] = op;
    return t;
}

constexpr std::array<Op, kernels::kOpCount> kPredefined = make_predefined();

constexpr bool all_predefined_present() {
    for (int i = 1; i < kernels::kOpCount; ++i)
        if (kPredefined[i].handle !=
            handle::make(kKind, handle::Storage::predefined, static_cast<std::uint32_t>(i)))
            return false;
    return true;
}
static_assert(all_predefined_present(), "a predefined operator of mpi.h has no table entry");

HandleTable<Op>& user_ops() {
    static HandleTable<Op> table(kKind, kFirstUserSlot);
    return table;
}

// What a predefined operator applies to, completing "...; it applies to ".
const char* domain_of(MPI_Op op) {
    switch (op) {
        case MPI_MAX:
        case MPI_MIN:
            return "integer and floating-point types";
        case MPI_SUM:
        case MPI_PROD:
            return "integer, floating-point and complex types";
        case MPI_LAND:
        case MPI_LOR:
        case MPI_LXOR:
            return "C integer types, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_C_BOOL and "
                   "MPI_LOGICAL";
        case MPI_BAND:
        case MPI_BOR:
        case MPI_BXOR:
            return "integer types and MPI_BYTE";
        case MPI_MAXLOC:
        case MPI_MINLOC:
            return "the value-index pair types (MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, "
                   "MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2INTEGER, MPI_2REAL, "
                   "MPI_2DOUBLE_PRECISION)";
        default:
            return "no datatype";
    }
}

// A user function sees items laid out as their type says, holes and all:
// both operands are unpacked into scratch memory, and the result packed back.
void apply_unpacked(const Op& op, const Type& type, const void* in, void* inout,
                    std::size_t count) {
    const std::size_t span = (count - 1) * type.extent + type.true_extent;
    std::vector<std::byte> a(span), b(span);
    std::byte* a_items = a.data() - type.true_lb;
    std::byte* b_items = b.data() - type.true_lb;
    unpack(type, in, type.bytes(count), a_items);
    unpack(type, inout, type.bytes(count), b_items);
    MPI_Datatype handle = type.handle;
    int len = static_cast<int>(std::min<std::size_t>(count, INT_MAX));
    op.function(a_items, b_items, &len, &handle);
    pack(type, b_items, count, inout);
}

}  // namespace

const Op* lookup_op(MPI_Op handle) {
    const unsigned offset = static_cast<unsigned>(handle) - static_cast<unsigned>(MPI_MAX);
    if (offset < static_cast<unsigned>(kernels::kOpCount - 1)) return &kPredefined[offset + 1];
    return user_ops().find(handle);
}

int create_op(MPI_User_function* function, bool commutative, MPI_Op& out) {
    if (function == nullptr) return MPI_ERR_ARG;
    const int handle = user_ops().add(Op{MPI_OP_NULL, function, false, commutative, ""},
                                      [](int h) { return fmt::format("user operator {:#x}", h); });
    if (handle == 0) return MPI_ERR_INTERN;
    out = handle;
    return MPI_SUCCESS;
}

int free_op(MPI_Op handle) {
    return user_ops().remove(handle) ? MPI_SUCCESS : MPI_ERR_OP;
}

bool reduction_valid(const Op& op, const Type& type) {
    if (!op.predefined) return true;
    return kernels::find(op.handle, type.base) != nullptr;
}

std::string reduction_error(const Op& op, const Type& type) {
    if (reduction_valid(op, type)) return {};
    if (op.handle == MPI_REPLACE || op.handle == MPI_NO_OP)
        return fmt::format("{} is for one-sided accumulate operations only, not for reductions",
                           op.name);
    std::string message =
        type.predefined ? fmt::format("{} is not defined for {}", op.name, type.name)
        : type.base == MPI_DATATYPE_NULL
            ? fmt::format("{} is not defined for {}, whose elements are of different types",
                          op.name, type.name)
            : fmt::format("{} is not defined for {}, whose elements are {}", op.name, type.name,
                          predefined(type.base).name);
    message += fmt::format("; it applies to {}", domain_of(op.handle));
    return message;
}

void apply(const Op& op, const Type& type, const void* in, void* inout, std::size_t count) {
    if (count == 0) return;
    if (op.predefined) {
        const kernels::Kernel kernel = kernels::find(op.handle, type.base);
        if (kernel == nullptr) return;
        const auto aligned = [&](const void* p) {
            return reinterpret_cast<std::uintptr_t>(p) % type.alignment == 0;
        };
        if (aligned(in) && aligned(inout)) {
            kernel(in, inout, count * type.elements);
            return;
        }
        // The kernels read typed elements: data at an odd address (a window
        // displacement the program chose) is reduced in aligned copies.
        const std::size_t bytes = type.bytes(count);
        std::vector<std::max_align_t> a(bytes / sizeof(std::max_align_t) + 1);
        std::vector<std::max_align_t> b(a.size());
        std::memcpy(a.data(), in, bytes);
        std::memcpy(b.data(), inout, bytes);
        kernel(a.data(), b.data(), count * type.elements);
        std::memcpy(inout, b.data(), bytes);
        return;
    }
    if (!type.contiguous) {
        apply_unpacked(op, type, in, inout, count);
        return;
    }
    // The standard's user function takes non-const pointers, an int length
    // and items where the type puts them: the packed data less the lower bound.
    MPI_Datatype handle = type.handle;
    auto* a = static_cast<std::byte*>(const_cast<void*>(in)) - type.true_lb;
    auto* b = static_cast<std::byte*>(inout) - type.true_lb;
    while (count > 0) {
        const std::size_t done = std::min<std::size_t>(count, INT_MAX);
        int len = static_cast<int>(done);  // a copy: the function may write to it
        op.function(a, b, &len, &handle);
        a += static_cast<std::ptrdiff_t>(done) * type.extent;
        b += static_cast<std::ptrdiff_t>(done) * type.extent;
        count -= done;
    }
}

std::size_t user_op_count() {
    return user_ops().live();
}

}  // namespace si::datatype
