// Attribute caching from Fortran. An attribute value there is an integer
// (INTEGER(KIND=MPI_ADDRESS_KIND), or a default INTEGER in MPI-1's calls),
// stored in place of C's pointer; the predefined attributes are ints the
// library points to. A keyval created from Fortran gets C callbacks that call
// the Fortran ones with every argument by reference; the predefined Fortran
// callbacks (MPI_COMM_DUP_FN, ...) are recognised by address and replaced by
// their C twins.
#include <deque>
#include <mutex>

#include "fortran/arguments.hpp"

extern "C" {

// Fortran's predefined callbacks, which mpif.h declares EXTERNAL. Named here
// so that the keyval calls can recognise them; a program may also call them.
void pmpi_comm_null_copy_fn_(const MPI_Fint*, const MPI_Fint*, const MPI_Aint*, const MPI_Aint*,
                             MPI_Aint*, MPI_Fint* flag, MPI_Fint* ierr) {
    *flag = 0;
    *ierr = MPI_SUCCESS;
}
#pragma weak mpi_comm_null_copy_fn_ = pmpi_comm_null_copy_fn_
#pragma weak mpi_type_null_copy_fn_ = pmpi_comm_null_copy_fn_
#pragma weak mpi_win_null_copy_fn_ = pmpi_comm_null_copy_fn_

void pmpi_comm_dup_fn_(const MPI_Fint*, const MPI_Fint*, const MPI_Aint*, const MPI_Aint* in,
                       MPI_Aint* out, MPI_Fint* flag, MPI_Fint* ierr) {
    *out = *in;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}
#pragma weak mpi_comm_dup_fn_ = pmpi_comm_dup_fn_
#pragma weak mpi_type_dup_fn_ = pmpi_comm_dup_fn_
#pragma weak mpi_win_dup_fn_ = pmpi_comm_dup_fn_

void pmpi_comm_null_delete_fn_(const MPI_Fint*, const MPI_Fint*, const MPI_Aint*, const MPI_Aint*,
                               MPI_Fint* ierr) {
    *ierr = MPI_SUCCESS;
}
#pragma weak mpi_comm_null_delete_fn_ = pmpi_comm_null_delete_fn_
#pragma weak mpi_type_null_delete_fn_ = pmpi_comm_null_delete_fn_
#pragma weak mpi_win_null_delete_fn_ = pmpi_comm_null_delete_fn_

// MPI-1's, on default INTEGERs.
void pmpi_null_copy_fn_(const MPI_Fint*, const MPI_Fint*, const MPI_Fint*, const MPI_Fint*,
                        MPI_Fint*, MPI_Fint* flag, MPI_Fint* ierr) {
    *flag = 0;
    *ierr = MPI_SUCCESS;
}
#pragma weak mpi_null_copy_fn_ = pmpi_null_copy_fn_

void pmpi_dup_fn_(const MPI_Fint*, const MPI_Fint*, const MPI_Fint*, const MPI_Fint* in,
                  MPI_Fint* out, MPI_Fint* flag, MPI_Fint* ierr) {
    *out = *in;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}
#pragma weak mpi_dup_fn_ = pmpi_dup_fn_

void pmpi_null_delete_fn_(const MPI_Fint*, const MPI_Fint*, const MPI_Fint*, const MPI_Fint*,
                          MPI_Fint* ierr) {
    *ierr = MPI_SUCCESS;
}
#pragma weak mpi_null_delete_fn_ = pmpi_null_delete_fn_

}  // extern "C"

namespace {

// Every value an attribute holds is an integer of this width in Fortran.
template <typename Value>
using FortranCopy = void(const MPI_Fint* handle, const MPI_Fint* keyval, const Value* extra,
                         const Value* in, Value* out, MPI_Fint* flag, MPI_Fint* ierr);
template <typename Value>
using FortranDelete = void(const MPI_Fint* handle, const MPI_Fint* keyval, const Value* value,
                           const Value* extra, MPI_Fint* ierr);

// What a keyval created from Fortran calls back, passed to C as its extra
// state. Kept for the life of the program: a keyval outlives MPI_*_free_keyval
// while attributes use it, and programs create few.
template <typename Value>
struct Callbacks {
    FortranCopy<Value>* copy;
    FortranDelete<Value>* remove;
    Value extra;
};

template <typename Value>
Callbacks<Value>* keep(Callbacks<Value> callbacks) {
    static std::mutex mutex;
    static std::deque<Callbacks<Value>> kept;
    std::lock_guard lock(mutex);
    return &kept.emplace_back(callbacks);
}

template <typename Value>
int copy_trampoline(MPI_Fint handle, int keyval, void* extra, void* in, void* out, int* flag) {
    const auto& callbacks = *static_cast<const Callbacks<Value>*>(extra);
    const Value value_in = static_cast<Value>(reinterpret_cast<MPI_Aint>(in));
    Value value_out = 0;
    MPI_Fint fortran_flag = 0, ierr = MPI_SUCCESS;
    callbacks.copy(&handle, &keyval, &callbacks.extra, &value_in, &value_out, &fortran_flag, &ierr);
    *static_cast<void**>(out) = reinterpret_cast<void*>(static_cast<MPI_Aint>(value_out));
    *flag = fortran_flag != 0;
    return ierr;
}

template <typename Value>
int delete_trampoline(MPI_Fint handle, int keyval, void* value, void* extra) {
    const auto& callbacks = *static_cast<const Callbacks<Value>*>(extra);
    const Value fortran_value = static_cast<Value>(reinterpret_cast<MPI_Aint>(value));
    MPI_Fint ierr = MPI_SUCCESS;
    callbacks.remove(&handle, &keyval, &fortran_value, &callbacks.extra, &ierr);
    return ierr;
}

// The C callbacks for a pair of Fortran ones: the predefined ones map to
// C's, any other calls through a trampoline.
template <typename Value, typename CCopy, typename CDelete>
void* c_callbacks(FortranCopy<Value>* copy, FortranDelete<Value>* remove, Value extra,
                  FortranCopy<Value>* null_copy, FortranCopy<Value>* dup,
                  FortranDelete<Value>* null_delete, CCopy** c_copy, CDelete** c_delete) {
    if (copy == null_copy)
        *c_copy = nullptr;  // MPI_*_NULL_COPY_FN
    else if (copy == dup)
        *c_copy = reinterpret_cast<CCopy*>(&MPI_COMM_DUP_FN);
    else
        *c_copy = reinterpret_cast<CCopy*>(&copy_trampoline<Value>);
    *c_delete =
        remove == null_delete ? nullptr : reinterpret_cast<CDelete*>(&delete_trampoline<Value>);
    return keep(Callbacks<Value>{copy, remove, extra});
}

bool predefined_attribute(int keyval) {
    switch (keyval) {
        case MPI_TAG_UB:
        case MPI_HOST:
        case MPI_IO:
        case MPI_WTIME_IS_GLOBAL:
        case MPI_UNIVERSE_SIZE:
        case MPI_APPNUM:
        case MPI_LASTUSEDCODE:
            return true;
        default:
            return false;
    }
}

bool predefined_window_attribute(int keyval) {
    return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
           keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

// The C key of a Fortran attribute key: MPICH's Fortran values of the
// predefined keys (mpif.h) are the C ones + 1, so that its library can tell
// which language asks; any other key is the same in both.
int c_keyval(MPI_Fint keyval) {
    const int c = keyval - 1;
    return predefined_attribute(c) || predefined_window_attribute(c) ? c : keyval;
}

template <typename Value>
void attribute_out(int keyval, void* c_value, int found, Value* fortran) {
    if (!found) return;
    *fortran = predefined_attribute(keyval)
                   ? static_cast<Value>(*static_cast<int*>(c_value))
                   : static_cast<Value>(reinterpret_cast<MPI_Aint>(c_value));
}

void* as_pointer(MPI_Aint value) {
    return reinterpret_cast<void*>(value);
}

}  // namespace

extern "C" {

void pmpi_comm_create_keyval_(FortranCopy<MPI_Aint>* copy, FortranDelete<MPI_Aint>* remove,
                              MPI_Fint* keyval, const MPI_Aint* extra_state, MPI_Fint* ierr) {
    MPI_Comm_copy_attr_function* c_copy;
    MPI_Comm_delete_attr_function* c_delete;
    void* extra = c_callbacks(copy, remove, *extra_state, &pmpi_comm_null_copy_fn_,
                              &pmpi_comm_dup_fn_, &pmpi_comm_null_delete_fn_, &c_copy, &c_delete);
    *ierr = MPI_Comm_create_keyval(c_copy, c_delete, keyval, extra);
}
#pragma weak mpi_comm_create_keyval_ = pmpi_comm_create_keyval_

void pmpi_type_create_keyval_(FortranCopy<MPI_Aint>* copy, FortranDelete<MPI_Aint>* remove,
                              MPI_Fint* keyval, const MPI_Aint* extra_state, MPI_Fint* ierr) {
    MPI_Type_copy_attr_function* c_copy;
    MPI_Type_delete_attr_function* c_delete;
    void* extra = c_callbacks(copy, remove, *extra_state, &pmpi_comm_null_copy_fn_,
                              &pmpi_comm_dup_fn_, &pmpi_comm_null_delete_fn_, &c_copy, &c_delete);
    *ierr = MPI_Type_create_keyval(c_copy, c_delete, keyval, extra);
}
#pragma weak mpi_type_create_keyval_ = pmpi_type_create_keyval_

void pmpi_keyval_create_(FortranCopy<MPI_Fint>* copy, FortranDelete<MPI_Fint>* remove,
                         MPI_Fint* keyval, const MPI_Fint* extra_state, MPI_Fint* ierr) {
    MPI_Copy_function* c_copy;
    MPI_Delete_function* c_delete;
    void* extra = c_callbacks(copy, remove, *extra_state, &pmpi_null_copy_fn_, &pmpi_dup_fn_,
                              &pmpi_null_delete_fn_, &c_copy, &c_delete);
    *ierr = MPI_Keyval_create(c_copy, c_delete, keyval, extra);
}
#pragma weak mpi_keyval_create_ = pmpi_keyval_create_

void pmpi_comm_set_attr_(const MPI_Fint* comm, const MPI_Fint* keyval,
                         const MPI_Aint* attribute_val, MPI_Fint* ierr) {
    *ierr = MPI_Comm_set_attr(*comm, c_keyval(*keyval), as_pointer(*attribute_val));
}
#pragma weak mpi_comm_set_attr_ = pmpi_comm_set_attr_

void pmpi_comm_get_attr_(const MPI_Fint* comm, const MPI_Fint* keyval, MPI_Aint* attribute_val,
                         MPI_Fint* flag, MPI_Fint* ierr) {
    void* value = nullptr;
    const int key = c_keyval(*keyval);
    *ierr = MPI_Comm_get_attr(*comm, key, &value, flag);
    if (*ierr == MPI_SUCCESS) attribute_out(key, value, *flag, attribute_val);
}
#pragma weak mpi_comm_get_attr_ = pmpi_comm_get_attr_

void pmpi_type_set_attr_(const MPI_Fint* datatype, const MPI_Fint* keyval,
                         const MPI_Aint* attribute_val, MPI_Fint* ierr) {
    *ierr = MPI_Type_set_attr(*datatype, *keyval, as_pointer(*attribute_val));
}
#pragma weak mpi_type_set_attr_ = pmpi_type_set_attr_

void pmpi_type_get_attr_(const MPI_Fint* datatype, const MPI_Fint* keyval, MPI_Aint* attribute_val,
                         MPI_Fint* flag, MPI_Fint* ierr) {
    void* value = nullptr;
    *ierr = MPI_Type_get_attr(*datatype, *keyval, &value, flag);
    if (*ierr == MPI_SUCCESS) attribute_out(*keyval, value, *flag, attribute_val);
}
#pragma weak mpi_type_get_attr_ = pmpi_type_get_attr_

void pmpi_win_create_keyval_(FortranCopy<MPI_Aint>* copy, FortranDelete<MPI_Aint>* remove,
                             MPI_Fint* keyval, const MPI_Aint* extra_state, MPI_Fint* ierr) {
    MPI_Win_copy_attr_function* c_copy;
    MPI_Win_delete_attr_function* c_delete;
    void* extra = c_callbacks(copy, remove, *extra_state, &pmpi_comm_null_copy_fn_,
                              &pmpi_comm_dup_fn_, &pmpi_comm_null_delete_fn_, &c_copy, &c_delete);
    *ierr = MPI_Win_create_keyval(c_copy, c_delete, keyval, extra);
}
#pragma weak mpi_win_create_keyval_ = pmpi_win_create_keyval_

void pmpi_win_set_attr_(const MPI_Fint* win, const MPI_Fint* keyval, const MPI_Aint* attribute_val,
                        MPI_Fint* ierr) {
    *ierr = MPI_Win_set_attr(*win, c_keyval(*keyval), as_pointer(*attribute_val));
}
#pragma weak mpi_win_set_attr_ = pmpi_win_set_attr_

// A window's predefined attributes are values in Fortran: MPI_WIN_BASE the
// address itself, MPI_WIN_SIZE an MPI_Aint, the others ints (C gets pointers).
void pmpi_win_get_attr_(const MPI_Fint* win, const MPI_Fint* keyval, MPI_Aint* attribute_val,
                        MPI_Fint* flag, MPI_Fint* ierr) {
    void* value = nullptr;
    const int key = c_keyval(*keyval);
    *ierr = MPI_Win_get_attr(*win, key, &value, flag);
    if (*ierr != MPI_SUCCESS || !*flag) return;
    switch (key) {
        case MPI_WIN_SIZE:
            *attribute_val = *static_cast<MPI_Aint*>(value);
            break;
        case MPI_WIN_DISP_UNIT:
        case MPI_WIN_CREATE_FLAVOR:
        case MPI_WIN_MODEL:
            *attribute_val = *static_cast<int*>(value);
            break;
        default:  // MPI_WIN_BASE and user attributes: the pointer is the value
            *attribute_val = reinterpret_cast<MPI_Aint>(value);
    }
}
#pragma weak mpi_win_get_attr_ = pmpi_win_get_attr_

// MPI-1's forms: the value is a default INTEGER.
void pmpi_attr_put_(const MPI_Fint* comm, const MPI_Fint* keyval, const MPI_Fint* attribute_val,
                    MPI_Fint* ierr) {
    *ierr = MPI_Attr_put(*comm, c_keyval(*keyval), as_pointer(*attribute_val));
}
#pragma weak mpi_attr_put_ = pmpi_attr_put_

void pmpi_attr_get_(const MPI_Fint* comm, const MPI_Fint* keyval, MPI_Fint* attribute_val,
                    MPI_Fint* flag, MPI_Fint* ierr) {
    void* value = nullptr;
    const int key = c_keyval(*keyval);
    *ierr = MPI_Attr_get(*comm, key, &value, flag);
    if (*ierr == MPI_SUCCESS) attribute_out(key, value, *flag, attribute_val);
}
#pragma weak mpi_attr_get_ = pmpi_attr_get_

}  // extern "C"
