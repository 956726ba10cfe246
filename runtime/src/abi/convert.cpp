// The tables behind convert.hpp. This file compiles against the runtime's
// mpi.h, so every native value below is the runtime's own macro; the
// standard's values come from standard.py through the generated tables.
#include "abi/convert.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <utility>

#include "standard_values.hpp"

namespace si::abi {

namespace {

namespace std_ = standard;

struct HandlePair {
    int standard;
    int native;
};
constexpr HandlePair kHandles[] = {
#define SI_ABI_HANDLE(standard, native) {standard, static_cast<int>(native)},
#define SI_ABI_CONSTANT(group, standard, native)
#include "standard_tables.inc"
#undef SI_ABI_HANDLE
#undef SI_ABI_CONSTANT
};

struct ConstantPair {
    Constants group;
    int standard;
    int native;
};
constexpr ConstantPair kConstants[] = {
#define SI_ABI_HANDLE(standard, native)
#define SI_ABI_CONSTANT(group, standard, native) {Constants::group, standard, static_cast<int>(native)},
#include "standard_tables.inc"
#undef SI_ABI_HANDLE
#undef SI_ABI_CONSTANT
};
// The runtime still names the combiners of MPI-1's removed constructors.
constexpr ConstantPair kRemovedCombiners[] = {
    {Constants::combiner, std_::mpi_combiner_hvector, MPI_COMBINER_HVECTOR_INTEGER},
    {Constants::combiner, std_::mpi_combiner_hindexed, MPI_COMBINER_HINDEXED_INTEGER},
    {Constants::combiner, std_::mpi_combiner_struct, MPI_COMBINER_STRUCT_INTEGER},
};

constexpr std::array<int, kStandardHandles> native_of_standard() {
    std::array<int, kStandardHandles> table{};
    for (const HandlePair& pair : kHandles) table[static_cast<std::size_t>(pair.standard)] = pair.native;
    return table;
}

// The pairs by the runtime's value. Stable: of the standard names the runtime
// gives one value (its MPI_DATATYPE_NULL for types it lacks), the first in
// the table wins.
const std::array<HandlePair, std::size(kHandles)>& sorted_by_native() {
    static const auto sorted = [] {
        std::array<HandlePair, std::size(kHandles)> pairs;
        std::copy(std::begin(kHandles), std::end(kHandles), pairs.begin());
        std::stable_sort(pairs.begin(), pairs.end(),
                         [](const HandlePair& a, const HandlePair& b) { return a.native < b.native; });
        return pairs;
    }();
    return sorted;
}

}  // namespace

constinit const std::array<int, kStandardHandles> kNativeOfStandard = native_of_standard();

void* standard_of_native(int native) {
    if (native == MPI_REQUEST_NULL) return reinterpret_cast<void*>(std_::mpi_request_null);
    const auto& sorted = sorted_by_native();
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), native,
                                     [](const HandlePair& p, int v) { return p.native < v; });
    if (it != sorted.end() && it->native == native)
        return reinterpret_cast<void*>(static_cast<std::uintptr_t>(it->standard));
    // A predefined handle the standard has no value for: kept as it is, so
    // that it comes back unchanged.
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(static_cast<std::uint32_t>(native)));
}

void* abi_message_handle(int native) {
    return native == MPI_MESSAGE_NULL ? reinterpret_cast<void*>(std_::mpi_message_null)
                                      : abi_handle(native);
}

const void* native_buffer(const void* buffer) {
    return buffer == reinterpret_cast<const void*>(1) ? MPI_IN_PLACE : buffer;
}

const int* native_weights(const int* weights) {
    const auto value = reinterpret_cast<std::uintptr_t>(weights);
    if (value == static_cast<std::uintptr_t>(10)) return MPI_UNWEIGHTED;
    if (value == static_cast<std::uintptr_t>(11)) return MPI_WEIGHTS_EMPTY;
    return weights;
}

NativeStatus* native_status_ignore() { return reinterpret_cast<NativeStatus*>(MPI_STATUS_IGNORE); }

void status_in(const Status* status, NativeStatus* native) {
    if (status == nullptr) return;
    native->count_lo = status->internal[0];
    native->count_hi_and_cancelled = status->internal[1];
    native->source = rank_in(status->source);
    native->tag = tag_in(status->tag);
    native->error = error_in(status->error);
}

void status_out(const NativeStatus& native, Status* status) {
    if (status == nullptr) return;
    if (native.error != kUnwritten) status->error = error_out(native.error);
    if (native.source != kUnwritten) status->source = rank_out(native.source);
    if (native.tag != kUnwritten) status->tag = tag_out(native.tag);
    if (native.count_lo != kUnwritten || native.count_hi_and_cancelled != kUnwritten) {
        status->internal[0] = native.count_lo;
        status->internal[1] = native.count_hi_and_cancelled;
    }
}

int special_rank_in(int rank) {
    if (rank == std_::mpi_any_source) return MPI_ANY_SOURCE;
    if (rank == std_::mpi_proc_null) return MPI_PROC_NULL;
    if (rank == std_::mpi_root) return MPI_ROOT;
    return rank;
}

int special_rank_out(int rank) {
    if (rank == MPI_ANY_SOURCE) return std_::mpi_any_source;
    if (rank == MPI_PROC_NULL) return std_::mpi_proc_null;
    if (rank == MPI_ROOT) return std_::mpi_root;
    return rank;
}

int special_tag_in(int tag) { return tag == std_::mpi_any_tag ? MPI_ANY_TAG : tag; }
int special_tag_out(int tag) { return tag == MPI_ANY_TAG ? std_::mpi_any_tag : tag; }

namespace {

// What a program added lies above each side's MPI_ERR_LASTCODE.
constexpr int kFirstAddedNative = MPI_ERR_LASTCODE + 1;
constexpr int kFirstAddedStandard = std_::mpi_err_lastcode + 1;
// A predefined class's code also names the message of one failure: the
// runtime's is class + 128 * (message slot + 1) (api/errors.cpp, 64 slots);
// here it is class + 64 * (slot + 1), under the standard's MPI_ERR_LASTCODE.
constexpr int kNativeClassSpan = 128;
constexpr int kStandardClassSpan = 64;

// The other side's value of `value`, a constant of `group`, if it is one.
template <typename Pick, typename Give>
std::optional<int> translate(Constants group, int value, Pick pick, Give give) {
    for (const ConstantPair& pair : kConstants)
        if (pair.group == group && pick(pair) == value) return give(pair);
    for (const ConstantPair& pair : kRemovedCombiners)
        if (pair.group == group && pick(pair) == value) return give(pair);
    return std::nullopt;
}

constexpr auto kStandard = [](const ConstantPair& p) { return p.standard; };
constexpr auto kNative = [](const ConstantPair& p) { return p.native; };

}  // namespace

// A class one side has and the other lacks (MPI_ERR_ABI) is an unknown one.
// A code a program added maps by offset; one beyond what the other side can
// hold is not a code and passes unchanged.
int shifted(int code, int from, int to) {
    const long long out = static_cast<long long>(code) - from + to;
    return out <= std::numeric_limits<int>::max() ? static_cast<int>(out) : code;
}

int error_in(int code) {
    if (code >= kFirstAddedStandard) return shifted(code, kFirstAddedStandard, kFirstAddedNative);
    if (code <= 0) return code;
    const int error_class = translate(Constants::error_class, code % kStandardClassSpan, kStandard,
                                      kNative)
                                .value_or(MPI_ERR_UNKNOWN);
    return error_class + kNativeClassSpan * (code / kStandardClassSpan);
}

int error_out(int code) {
    if (code >= kFirstAddedNative) return shifted(code, kFirstAddedNative, kFirstAddedStandard);
    if (code <= 0) return code;
    const int error_class = translate(Constants::error_class, code % kNativeClassSpan, kNative,
                                      kStandard)
                                .value_or(std_::mpi_err_unknown);
    return error_class + kStandardClassSpan * (code / kNativeClassSpan);
}

// Not a constant of the group: a count, a program's keyval, passed as it is.
int constant_in(Constants group, int value) {
    return translate(group, value, kStandard, kNative).value_or(value);
}
int constant_out(Constants group, int value) {
    return translate(group, value, kNative, kStandard).value_or(value);
}

int darg_in(int darg) {
    return darg == std_::mpi_distribute_dflt_darg ? MPI_DISTRIBUTE_DFLT_DARG : darg;
}
int darg_out(int darg) {
    return darg == MPI_DISTRIBUTE_DFLT_DARG ? std_::mpi_distribute_dflt_darg : darg;
}

int assert_in(int assert_bits) {
    int native = 0;
    for (const ConstantPair& pair : kConstants)
        if (pair.group == Constants::assert_bit && (assert_bits & pair.standard) != 0) {
            native |= pair.native;
            assert_bits &= ~pair.standard;
        }
    return native | assert_bits;  // bits the standard does not define: the runtime refuses them
}

}  // namespace si::abi
