// The standard ABI's entry points that generate.py leaves to this file:
// calls that take the program's functions (the runtime calls them with its
// own handles, so they are called through trampolines that convert),
// attribute values that are constants, datatype arrays whose length is the
// communicator's, and the calls only the ABI has.
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "native_calls.hpp"
#include "standard_values.hpp"

namespace si::abi {
namespace {

namespace std_ = standard;

// ---- functions the runtime calls: a fixed set of trampolines per kind -------
// A user-defined operation or error handler is called with no state of its
// own, so each distinct function gets one of kSlots trampolines that knows
// its index. The same function registered again reuses its slot.
constexpr std::size_t kSlots = 64;

template <typename Function>  // a function pointer type
class Slots {
  public:
    // The slot of `function`, or -1 when all are taken by others.
    int slot_of(Function function) {
        std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < used_; ++i)
            if (functions_[i] == function) return static_cast<int>(i);
        if (used_ == kSlots) return -1;
        functions_[used_] = function;
        return static_cast<int>(used_++);
    }
    Function at(std::size_t slot) const { return functions_[slot]; }

  private:
    std::mutex mutex_;
    std::array<Function, kSlots> functions_{};
    std::size_t used_ = 0;
};

using UserFunction = void (*)(void* in, void* inout, int* length, MPI_ABI_Datatype** type);
using CommErrhandler = void (*)(MPI_ABI_Comm** comm, int* code, ...);
using WinErrhandler = void (*)(MPI_ABI_Win** win, int* code, ...);

Slots<UserFunction>& user_functions() {
    static Slots<UserFunction> slots;
    return slots;
}
Slots<CommErrhandler>& comm_errhandlers() {
    static Slots<CommErrhandler> slots;
    return slots;
}
Slots<WinErrhandler>& win_errhandlers() {
    static Slots<WinErrhandler> slots;
    return slots;
}

template <std::size_t I>
void user_function_trampoline(void* in, void* inout, int* length, int* type) {
    MPI_ABI_Datatype* abi_type = to_abi<MPI_ABI_Datatype*>(*type);
    user_functions().at(I)(in, inout, length, &abi_type);
}
template <std::size_t I>
void comm_errhandler_trampoline(int* comm, int* code, ...) {
    MPI_ABI_Comm* abi_comm = to_abi<MPI_ABI_Comm*>(*comm);
    int abi_code = error_out(*code);
    comm_errhandlers().at(I)(&abi_comm, &abi_code);
}
template <std::size_t I>
void win_errhandler_trampoline(int* win, int* code, ...) {
    MPI_ABI_Win* abi_win = to_abi<MPI_ABI_Win*>(*win);
    int abi_code = error_out(*code);
    win_errhandlers().at(I)(&abi_win, &abi_code);
}

template <typename Trampoline, template <std::size_t> typename Make, std::size_t... I>
constexpr std::array<Trampoline*, kSlots> trampolines(std::index_sequence<I...>) {
    return {Make<I>::function...};
}
template <std::size_t I>
struct UserFunctionAt {
    static constexpr auto function = &user_function_trampoline<I>;
};
template <std::size_t I>
struct CommErrhandlerAt {
    static constexpr auto function = &comm_errhandler_trampoline<I>;
};
template <std::size_t I>
struct WinErrhandlerAt {
    static constexpr auto function = &win_errhandler_trampoline<I>;
};
using NativeUserFunction = void(void*, void*, int*, int*);
using NativeErrhandler = void(int*, int*, ...);
constexpr auto kUserFunctionTrampolines =
    trampolines<NativeUserFunction, UserFunctionAt>(std::make_index_sequence<kSlots>());
constexpr auto kCommErrhandlerTrampolines =
    trampolines<NativeErrhandler, CommErrhandlerAt>(std::make_index_sequence<kSlots>());
constexpr auto kWinErrhandlerTrampolines =
    trampolines<NativeErrhandler, WinErrhandlerAt>(std::make_index_sequence<kSlots>());

// All trampolines of a kind are taken: said on stderr and raised on
// MPI_COMM_WORLD, whose handler decides (fatal by default).
int out_of_slots(const char* call) {
    std::fprintf(stderr,
                 "%s: more than %zu different functions registered through the standard ABI "
                 "(libmpi_abi has %zu trampolines per kind)\n",
                 call, kSlots, kSlots);
    const int native = constant_in(Constants::error_class, std_::mpi_err_intern);
    abi_native_PMPI_Comm_call_errhandler(native_handle(reinterpret_cast<void*>(std_::mpi_comm_world)),
                                         native);
    return error_out(native);
}

// Creates the runtime's object (`create(trampoline, &native)`) for a
// program's function, through the function's trampoline.
template <typename Function, typename Trampolines, typename Handle, typename Create>
int register_function(const char* call, Slots<Function>& slots, const Trampolines& trampolines,
                      Function function, Handle** handle, Create create) {
    const int slot = function == nullptr ? -1 : slots.slot_of(function);
    if (function != nullptr && slot < 0) return out_of_slots(call);
    void* trampoline = function == nullptr
                           ? nullptr
                           : reinterpret_cast<void*>(trampolines[static_cast<std::size_t>(slot)]);
    int native = 0;
    const int rc = create(trampoline, handle ? &native : nullptr);
    if (handle && rc == 0) *handle = to_abi<Handle*>(native);
    return result_out(rc);
}

// ---- attribute callbacks: the program's functions ride in extra_state ----------
using CopyFunction = int (*)(void* object, int keyval, void* extra_state, void* value_in,
                             void* value_out, int* flag);
using DeleteFunction = int (*)(void* object, int keyval, void* value, void* extra_state);

struct KeyvalCallbacks {
    CopyFunction copy;
    DeleteFunction erase;
    void* extra_state;
};

int copy_trampoline(int object, int keyval, void* extra_state, void* value_in, void* value_out,
                    int* flag) {
    const auto* callbacks = static_cast<const KeyvalCallbacks*>(extra_state);
    return error_in(callbacks->copy(abi_handle(object), constant_out(Constants::keyval, keyval),
                                    callbacks->extra_state, value_in, value_out, flag));
}

int delete_trampoline(int object, int keyval, void* value, void* extra_state) {
    const auto* callbacks = static_cast<const KeyvalCallbacks*>(extra_state);
    return error_in(callbacks->erase(abi_handle(object), constant_out(Constants::keyval, keyval),
                                     value, callbacks->extra_state));
}

// Kept for the life of the process: the runtime may call a freed key's
// delete function until the last attribute of the key goes.
KeyvalCallbacks* keep(KeyvalCallbacks callbacks) {
    static std::mutex mutex;
    static std::vector<std::unique_ptr<KeyvalCallbacks>> kept;
    std::lock_guard lock(mutex);
    kept.push_back(std::make_unique<KeyvalCallbacks>(callbacks));
    return kept.back().get();
}

using NativeCreateKeyval = int (*)(void*, void*, int*, void*);
using NativeDup = int (*)(int, int, void*, void*, void*, int*);

// The standard's MPI_*_NULL_COPY_FN is 0 and MPI_*_DUP_FN is 1.
int create_keyval(NativeCreateKeyval create, NativeDup dup, void* copy, void* erase,
                  int* keyval, void* extra_state) {
    const auto copy_value = reinterpret_cast<std::uintptr_t>(copy);
    void* native_copy = copy_value == 0   ? nullptr
                        : copy_value == 1 ? reinterpret_cast<void*>(dup)
                                          : reinterpret_cast<void*>(&copy_trampoline);
    void* native_erase = erase == nullptr ? nullptr : reinterpret_cast<void*>(&delete_trampoline);
    KeyvalCallbacks* callbacks = keep({reinterpret_cast<CopyFunction>(copy),
                                       reinterpret_cast<DeleteFunction>(erase), extra_state});
    int native = 0;
    const int rc = create(native_copy, native_erase, keyval ? &native : nullptr, callbacks);
    if (keyval && rc == 0) *keyval = constant_out(Constants::keyval, native);
    return result_out(rc);
}

// ---- predefined attributes whose values are constants --------------------------
// The runtime's value is an int it owns; the program gets one this library
// owns, converted. Keys of the program's own pass through unchanged.
using NativeGetAttr = int (*)(int, int, void*, int*);

int get_attr(NativeGetAttr get, int object, int keyval, void* value, int* flag) {
    const int rc = get(object, constant_in(Constants::keyval, keyval), value, flag);
    if (rc != 0 || flag == nullptr || *flag == 0 || value == nullptr) return result_out(rc);
    int (*convert)(int) = nullptr;
    if (keyval == std_::mpi_host || keyval == std_::mpi_io) convert = rank_out;
    if (keyval == std_::mpi_lastusedcode) convert = error_out;
    if (keyval == std_::mpi_win_create_flavor)
        convert = [](int v) { return constant_out(Constants::win_flavor, v); };
    if (keyval == std_::mpi_win_model)
        convert = [](int v) { return constant_out(Constants::win_model, v); };
    if (convert == nullptr) return 0;
    static thread_local std::array<int, 8> converted;  // one per key above
    static constexpr std::array<int, 5> kKeys = {std_::mpi_host, std_::mpi_io,
                                                 std_::mpi_lastusedcode,
                                                 std_::mpi_win_create_flavor, std_::mpi_win_model};
    std::size_t slot = 0;
    while (kKeys[slot] != keyval) ++slot;
    int** pointer = static_cast<int**>(value);
    converted[slot] = convert(**pointer);
    *pointer = &converted[slot];
    return 0;
}

// ---- generalized requests -------------------------------------------------------
using QueryFunction = int (*)(void* extra_state, Status* status);
using FreeFunction = int (*)(void* extra_state);
using CancelFunction = int (*)(void* extra_state, int complete);

struct GrequestCallbacks {
    QueryFunction query;
    FreeFunction free;
    CancelFunction cancel;
    void* extra_state;
};

int query_trampoline(void* extra_state, NativeStatus* native) {
    const auto* callbacks = static_cast<const GrequestCallbacks*>(extra_state);
    Status status{};
    status_out(*native, &status);
    const int rc = callbacks->query(callbacks->extra_state, &status);
    status_in(&status, native);
    return error_in(rc);
}
int free_trampoline(void* extra_state) {
    std::unique_ptr<GrequestCallbacks> callbacks(static_cast<GrequestCallbacks*>(extra_state));
    return error_in(callbacks->free(callbacks->extra_state));
}
int cancel_trampoline(void* extra_state, int complete) {
    const auto* callbacks = static_cast<const GrequestCallbacks*>(extra_state);
    return error_in(callbacks->cancel(callbacks->extra_state, complete));
}

// ---- datatype arrays as long as a group ------------------------------------------
// MPI_Alltoallw's: the communicator's size (the remote group's for an
// intercommunicator). Returns an MPI error class of the runtime, or 0.
int peer_count(int comm, int* count) {
    int inter = 0;
    if (int rc = abi_native_PMPI_Comm_test_inter(comm, &inter)) return rc;
    return inter ? abi_native_PMPI_Comm_remote_size(comm, count)
                 : abi_native_PMPI_Comm_size(comm, count);
}

// A neighborhood collective's: the in- and out-degrees of the topology.
int neighbor_counts(int comm, int* in, int* out) {
    int kind = 0;
    if (int rc = abi_native_PMPI_Topo_test(comm, &kind)) return rc;
    if (kind == constant_in(Constants::topology, std_::mpi_cart)) {
        int dims = 0;
        const int rc = abi_native_PMPI_Cartdim_get(comm, &dims);
        *in = *out = 2 * dims;
        return rc;
    }
    if (kind == constant_in(Constants::topology, std_::mpi_graph)) {
        int rank = 0;
        if (int rc = abi_native_PMPI_Comm_rank(comm, &rank)) return rc;
        const int rc = abi_native_PMPI_Graph_neighbors_count(comm, rank, in);
        *out = *in;
        return rc;
    }
    int weighted = 0;
    // Not a topology: the runtime's call names the error.
    return abi_native_PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
}

// Converts two arrays of datatypes for one call.
struct TypeArrays {
    CallArray<int> send;
    CallArray<int> receive;
    TypeArrays(MPI_ABI_Datatype* const* send_types, int sends, MPI_ABI_Datatype* const* receive_types,
               int receives)
        : send(array_size(sends)), receive(array_size(receives)) {
        // MPI_IN_PLACE leaves the send types unread.
        for (int i = 0; send_types != nullptr && i < sends; ++i) send[i] = native_handle(send_types[i]);
        for (int i = 0; receive_types != nullptr && i < receives; ++i)
            receive[i] = native_handle(receive_types[i]);
    }
};

// The runtime writes the new communicator when the request completes, into
// the program's handle: its low half on this little-endian machine, which is
// the standard handle of a communicator the runtime created (convert.hpp)
// once the high half is zero.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "MPI_Comm_idup writes the low half");
template <typename Start>
int idup(MPI_ABI_Comm** newcomm, MPI_ABI_Request** request, Start start) {
    if (newcomm != nullptr) *newcomm = nullptr;
    int native_request = 0;
    const int rc = start(reinterpret_cast<int*>(newcomm), request ? &native_request : nullptr);
    if (rc != 0) {
        if (newcomm != nullptr) *newcomm = to_abi<MPI_ABI_Comm*>(*reinterpret_cast<int*>(newcomm));
        return result_out(rc);
    }
    if (request != nullptr) *request = to_abi<MPI_ABI_Request*>(native_request);
    return 0;
}

}  // namespace
}  // namespace si::abi

using namespace si::abi;

extern "C" {

int PMPI_Pcontrol(const int level, ...) { return result_out(abi_native_PMPI_Pcontrol(level)); }
#pragma weak MPI_Pcontrol = PMPI_Pcontrol

int PMPI_Op_create(UserFunction function, int commute, MPI_ABI_Op** op) {
    return register_function("MPI_Op_create", user_functions(), kUserFunctionTrampolines,
                             function, op, [&](void* trampoline, int* native) {
                                 return abi_native_PMPI_Op_create(trampoline, commute, native);
                             });
}
#pragma weak MPI_Op_create = PMPI_Op_create

int PMPI_Comm_create_errhandler(CommErrhandler function, MPI_ABI_Errhandler** errhandler) {
    return register_function("MPI_Comm_create_errhandler", comm_errhandlers(),
                             kCommErrhandlerTrampolines, function, errhandler,
                             abi_native_PMPI_Comm_create_errhandler);
}
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler

int PMPI_Win_create_errhandler(WinErrhandler function, MPI_ABI_Errhandler** errhandler) {
    return register_function("MPI_Win_create_errhandler", win_errhandlers(),
                             kWinErrhandlerTrampolines, function, errhandler,
                             abi_native_PMPI_Win_create_errhandler);
}
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler

int PMPI_Comm_create_keyval(void* copy, void* erase, int* keyval, void* extra_state) {
    return create_keyval(abi_native_PMPI_Comm_create_keyval, abi_native_MPI_COMM_DUP_FN, copy,
                         erase, keyval, extra_state);
}
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval

int PMPI_Keyval_create(void* copy, void* erase, int* keyval, void* extra_state) {
    return create_keyval(abi_native_PMPI_Keyval_create, abi_native_MPI_DUP_FN, copy, erase,
                         keyval, extra_state);
}
#pragma weak MPI_Keyval_create = PMPI_Keyval_create

int PMPI_Type_create_keyval(void* copy, void* erase, int* keyval, void* extra_state) {
    return create_keyval(abi_native_PMPI_Type_create_keyval, abi_native_MPI_TYPE_DUP_FN, copy,
                         erase, keyval, extra_state);
}
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval

int PMPI_Win_create_keyval(void* copy, void* erase, int* keyval, void* extra_state) {
    return create_keyval(abi_native_PMPI_Win_create_keyval, abi_native_MPI_WIN_DUP_FN, copy,
                         erase, keyval, extra_state);
}
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval

int PMPI_Comm_get_attr(MPI_ABI_Comm* comm, int keyval, void* value, int* flag) {
    return get_attr(abi_native_PMPI_Comm_get_attr, native_handle(comm), keyval, value, flag);
}
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr

int PMPI_Attr_get(MPI_ABI_Comm* comm, int keyval, void* value, int* flag) {
    return get_attr(abi_native_PMPI_Attr_get, native_handle(comm), keyval, value, flag);
}
#pragma weak MPI_Attr_get = PMPI_Attr_get

int PMPI_Win_get_attr(MPI_ABI_Win* win, int keyval, void* value, int* flag) {
    return get_attr(abi_native_PMPI_Win_get_attr, native_handle(win), keyval, value, flag);
}
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr

int PMPI_Grequest_start(QueryFunction query, FreeFunction free, CancelFunction cancel,
                        void* extra_state, MPI_ABI_Request** request) {
    // Deleted by free_trampoline once the request is freed, or here if it never starts.
    auto* callbacks = new GrequestCallbacks{query, free, cancel, extra_state};
    int native = 0;
    const int rc = abi_native_PMPI_Grequest_start(
        reinterpret_cast<void*>(&query_trampoline), reinterpret_cast<void*>(&free_trampoline),
        reinterpret_cast<void*>(&cancel_trampoline), callbacks, request ? &native : nullptr);
    if (rc != 0) {
        delete callbacks;
        return result_out(rc);
    }
    if (request) *request = to_abi<MPI_ABI_Request*>(native);
    return 0;
}
#pragma weak MPI_Grequest_start = PMPI_Grequest_start

int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_ABI_Datatype* const sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_ABI_Datatype* const recvtypes[], MPI_ABI_Comm* comm) {
    const int native_comm = native_handle(comm);
    int peers = 0;
    peer_count(native_comm, &peers);  // an invalid communicator: the call below says so
    const void* send = native_buffer(sendbuf);
    TypeArrays types(send == sendbuf ? sendtypes : nullptr, peers, recvtypes, peers);
    return result_out(abi_native_PMPI_Alltoallw(send, sendcounts, sdispls, types.send.data(),
                                                recvbuf, recvcounts, rdispls,
                                                types.receive.data(), native_comm));
}
#pragma weak MPI_Alltoallw = PMPI_Alltoallw

int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_ABI_Datatype* const sendtypes[], void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_ABI_Datatype* const recvtypes[], MPI_ABI_Comm* comm,
                    MPI_ABI_Request** request) {
    const int native_comm = native_handle(comm);
    int peers = 0;
    peer_count(native_comm, &peers);
    const void* send = native_buffer(sendbuf);
    TypeArrays types(send == sendbuf ? sendtypes : nullptr, peers, recvtypes, peers);
    int native = 0;
    const int rc = abi_native_PMPI_Ialltoallw(send, sendcounts, sdispls, types.send.data(),
                                              recvbuf, recvcounts, rdispls, types.receive.data(),
                                              native_comm, request ? &native : nullptr);
    if (request && rc == 0) *request = to_abi<MPI_ABI_Request*>(native);
    return result_out(rc);
}
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw

int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                            const std::intptr_t sdispls[], MPI_ABI_Datatype* const sendtypes[],
                            void* recvbuf, const int recvcounts[], const std::intptr_t rdispls[],
                            MPI_ABI_Datatype* const recvtypes[], MPI_ABI_Comm* comm) {
    const int native_comm = native_handle(comm);
    int in = 0, out = 0;
    neighbor_counts(native_comm, &in, &out);
    TypeArrays types(sendtypes, out, recvtypes, in);
    return result_out(abi_native_PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls,
                                                         types.send.data(), recvbuf, recvcounts,
                                                         rdispls, types.receive.data(),
                                                         native_comm));
}
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw

int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                             const std::intptr_t sdispls[], MPI_ABI_Datatype* const sendtypes[],
                             void* recvbuf, const int recvcounts[], const std::intptr_t rdispls[],
                             MPI_ABI_Datatype* const recvtypes[], MPI_ABI_Comm* comm,
                             MPI_ABI_Request** request) {
    const int native_comm = native_handle(comm);
    int in = 0, out = 0;
    neighbor_counts(native_comm, &in, &out);
    TypeArrays types(sendtypes, out, recvtypes, in);
    int native = 0;
    const int rc = abi_native_PMPI_Ineighbor_alltoallw(
        sendbuf, sendcounts, sdispls, types.send.data(), recvbuf, recvcounts, rdispls,
        types.receive.data(), native_comm, request ? &native : nullptr);
    if (request && rc == 0) *request = to_abi<MPI_ABI_Request*>(native);
    return result_out(rc);
}
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw

int PMPI_Comm_idup(MPI_ABI_Comm* comm, MPI_ABI_Comm** newcomm, MPI_ABI_Request** request) {
    return idup(newcomm, request, [&](int* native_newcomm, int* native_request) {
        return abi_native_PMPI_Comm_idup(native_handle(comm), native_newcomm, native_request);
    });
}
#pragma weak MPI_Comm_idup = PMPI_Comm_idup

int PMPI_Comm_idup_with_info(MPI_ABI_Comm* comm, MPI_ABI_Info* info, MPI_ABI_Comm** newcomm,
                             MPI_ABI_Request** request) {
    return idup(newcomm, request, [&](int* native_newcomm, int* native_request) {
        return abi_native_PMPI_Comm_idup_with_info(native_handle(comm), native_handle(info),
                                                   native_newcomm, native_request);
    });
}
#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info

// A subarray's and a darray's integers hold constants: the array order, the
// distributions and MPI_DISTRIBUTE_DFLT_DARG.
int PMPI_Type_get_contents(MPI_ABI_Datatype* datatype, int max_integers, int max_addresses,
                           int max_datatypes, int integers[], std::intptr_t addresses[],
                           MPI_ABI_Datatype* datatypes[]) {
    const int native_type = native_handle(datatype);
    CallArray<int> types(array_size(max_datatypes));
    const int rc = abi_native_PMPI_Type_get_contents(native_type, max_integers, max_addresses,
                                                     max_datatypes, integers, addresses,
                                                     types.data());
    if (rc != 0) return result_out(rc);
    int count = 0, unused = 0, combiner = 0;
    abi_native_PMPI_Type_get_envelope(native_type, &count, &unused, &unused, &combiner);
    for (int i = 0; i < max_datatypes; ++i) datatypes[i] = to_abi<MPI_ABI_Datatype*>(types[i]);
    if (combiner == constant_in(Constants::combiner, si::abi::standard::mpi_combiner_subarray)) {
        integers[count - 1] = constant_out(Constants::order, integers[count - 1]);
    } else if (combiner == constant_in(Constants::combiner, si::abi::standard::mpi_combiner_darray)) {
        // size, rank, ndims, gsizes[ndims], distribs[ndims], dargs[ndims], psizes[ndims], order
        const int ndims = integers[2];
        for (int i = 0; i < ndims; ++i) {
            int& distribution = integers[3 + ndims + i];
            distribution = constant_out(Constants::distribution, distribution);
            int& darg = integers[3 + 2 * ndims + i];
            darg = darg_out(darg);
        }
        integers[count - 1] = constant_out(Constants::order, integers[count - 1]);
    }
    return 0;
}
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

// The standard's Fortran status has the C layout (MPI_F_STATUS_SIZE 8,
// MPI_F_SOURCE 0, MPI_F_TAG 1, MPI_F_ERROR 2).
int PMPI_Status_c2f(const Status* c_status, int* f_status) {
    if (c_status == nullptr || f_status == nullptr)
        return error_out(constant_in(Constants::error_class, si::abi::standard::mpi_err_arg));
    std::memcpy(f_status, c_status, sizeof(Status));
    return 0;
}
#pragma weak MPI_Status_c2f = PMPI_Status_c2f

int PMPI_Status_f2c(const int* f_status, Status* c_status) {
    if (c_status == nullptr || f_status == nullptr)
        return error_out(constant_in(Constants::error_class, si::abi::standard::mpi_err_arg));
    std::memcpy(c_status, f_status, sizeof(Status));
    return 0;
}
#pragma weak MPI_Status_f2c = PMPI_Status_f2c

int PMPI_Abi_get_version(int* abi_major, int* abi_minor) {
    if (abi_major) *abi_major = 1;
    if (abi_minor) *abi_minor = 0;
    return 0;
}
#pragma weak MPI_Abi_get_version = PMPI_Abi_get_version


}
