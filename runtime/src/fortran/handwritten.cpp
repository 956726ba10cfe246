// The Fortran entry points generate.py leaves to hand: those returning
// CHARACTER data (blank-padded) or taking info keys and values (leading
// blanks dropped too), 1-based indices, function results and MPI_Init's
// missing arguments (attributes: attributes.cpp). Same convention as the
// generated ones: pmpi_x_ calls MPI_x, mpi_x_ is its weak alias.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "fortran/arguments.hpp"

using si::fortran::info_string_in;
using si::fortran::string_out;

namespace {

// Results whose C call wrote a NUL-terminated string of at most `capacity`
// characters into `text`.
void text_result(int rc, const std::string& text, char* fortran, std::size_t length,
                 MPI_Fint* resultlen, MPI_Fint* ierr) {
    *ierr = rc;
    if (rc != MPI_SUCCESS) return;
    string_out(text.c_str(), fortran, length);
    if (resultlen != nullptr)
        *resultlen = static_cast<MPI_Fint>(std::min(std::strlen(text.c_str()), length));
}

// A generalized request's Fortran callbacks (extra_state by reference, an
// IERROR argument, LOGICAL complete), called from C trampolines that get
// this as their extra_state; freed after free_fn.
using GrequestQuery = void(MPI_Aint* extra_state, MPI_Fint* status, MPI_Fint* ierr);
using GrequestFree = void(MPI_Aint* extra_state, MPI_Fint* ierr);
using GrequestCancel = void(MPI_Aint* extra_state, MPI_Fint* complete, MPI_Fint* ierr);
struct FortranGrequest {
    GrequestQuery* query;
    GrequestFree* free;
    GrequestCancel* cancel;
    MPI_Aint extra_state;
};

int grequest_query(void* state, MPI_Status* status) {
    auto* g = static_cast<FortranGrequest*>(state);
    MPI_Fint fortran_status[si::fortran::kStatusSize] = {};
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(&g->extra_state, fortran_status, &ierr);
    std::memcpy(status, fortran_status, sizeof *status);
    return ierr;
}

int grequest_free(void* state) {
    auto* g = static_cast<FortranGrequest*>(state);
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(&g->extra_state, &ierr);
    delete g;
    return ierr;
}

int grequest_cancel(void* state, int complete) {
    auto* g = static_cast<FortranGrequest*>(state);
    MPI_Fint fortran_complete = complete ? 1 : 0;
    MPI_Fint ierr = MPI_SUCCESS;
    g->cancel(&g->extra_state, &fortran_complete, &ierr);
    return ierr;
}

// A Fortran index is 1-based; MPI_UNDEFINED stays.
MPI_Fint to_fortran_index(int index) {
    return index == MPI_UNDEFINED ? index : index + 1;
}

// Fortran displacements widened to MPI_Aint.
std::vector<MPI_Aint> wide(const MPI_Fint* values, MPI_Fint count) {
    return std::vector<MPI_Aint>(values, values + std::max<MPI_Fint>(count, 0));
}

}  // namespace

extern "C" {

void pmpi_init_(MPI_Fint* ierr) {
    *ierr = MPI_Init(nullptr, nullptr);
}
#pragma weak mpi_init_ = pmpi_init_

void pmpi_init_thread_(const MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
    *ierr = MPI_Init_thread(nullptr, nullptr, *required, provided);
}
#pragma weak mpi_init_thread_ = pmpi_init_thread_

double pmpi_wtime_() {
    return MPI_Wtime();
}
#pragma weak mpi_wtime_ = pmpi_wtime_

double pmpi_wtick_() {
    return MPI_Wtick();
}
#pragma weak mpi_wtick_ = pmpi_wtick_

// MPI-3.1 gives MPI_PCONTROL no IERROR argument.
void pmpi_pcontrol_(const MPI_Fint* level) {
    MPI_Pcontrol(*level);
}
#pragma weak mpi_pcontrol_ = pmpi_pcontrol_

MPI_Aint pmpi_aint_add_(const MPI_Aint* base, const MPI_Aint* disp) {
    return MPI_Aint_add(*base, *disp);
}
#pragma weak mpi_aint_add_ = pmpi_aint_add_

MPI_Aint pmpi_aint_diff_(const MPI_Aint* addr1, const MPI_Aint* addr2) {
    return MPI_Aint_diff(*addr1, *addr2);
}
#pragma weak mpi_aint_diff_ = pmpi_aint_diff_

// ---- strings --------------------------------------------------------------------

void pmpi_get_processor_name_(char* name, MPI_Fint* resultlen, MPI_Fint* ierr,
                              std::size_t name_length) {
    std::string text(MPI_MAX_PROCESSOR_NAME, '\0');
    int n = 0;
    text_result(MPI_Get_processor_name(text.data(), &n), text, name, name_length, resultlen, ierr);
}
#pragma weak mpi_get_processor_name_ = pmpi_get_processor_name_

void pmpi_get_library_version_(char* version, MPI_Fint* resultlen, MPI_Fint* ierr,
                               std::size_t version_length) {
    std::string text(MPI_MAX_LIBRARY_VERSION_STRING, '\0');
    int n = 0;
    text_result(MPI_Get_library_version(text.data(), &n), text, version, version_length, resultlen,
                ierr);
}
#pragma weak mpi_get_library_version_ = pmpi_get_library_version_

void pmpi_error_string_(const MPI_Fint* errorcode, char* string, MPI_Fint* resultlen,
                        MPI_Fint* ierr, std::size_t string_length) {
    std::string text(MPI_MAX_ERROR_STRING, '\0');
    int n = 0;
    text_result(MPI_Error_string(*errorcode, text.data(), &n), text, string, string_length,
                resultlen, ierr);
}
#pragma weak mpi_error_string_ = pmpi_error_string_

void pmpi_comm_get_name_(const MPI_Fint* comm, char* name, MPI_Fint* resultlen, MPI_Fint* ierr,
                         std::size_t name_length) {
    std::string text(MPI_MAX_OBJECT_NAME, '\0');
    int n = 0;
    text_result(MPI_Comm_get_name(*comm, text.data(), &n), text, name, name_length, resultlen,
                ierr);
}
#pragma weak mpi_comm_get_name_ = pmpi_comm_get_name_

void pmpi_type_get_name_(const MPI_Fint* datatype, char* name, MPI_Fint* resultlen, MPI_Fint* ierr,
                         std::size_t name_length) {
    std::string text(MPI_MAX_OBJECT_NAME, '\0');
    int n = 0;
    text_result(MPI_Type_get_name(*datatype, text.data(), &n), text, name, name_length, resultlen,
                ierr);
}
#pragma weak mpi_type_get_name_ = pmpi_type_get_name_

void pmpi_win_get_name_(const MPI_Fint* win, char* name, MPI_Fint* resultlen, MPI_Fint* ierr,
                        std::size_t name_length) {
    std::string text(MPI_MAX_OBJECT_NAME, '\0');
    int n = 0;
    text_result(MPI_Win_get_name(*win, text.data(), &n), text, name, name_length, resultlen, ierr);
}
#pragma weak mpi_win_get_name_ = pmpi_win_get_name_

// Window memory the library allocates comes back as an address in an
// INTEGER(KIND=MPI_ADDRESS_KIND) (mpif.h's form; C_F_POINTER or a Cray
// pointer makes it an array).
void pmpi_win_allocate_(const MPI_Aint* size, const MPI_Fint* disp_unit, const MPI_Fint* info,
                        const MPI_Fint* comm, MPI_Aint* baseptr, MPI_Fint* win, MPI_Fint* ierr) {
    void* base = nullptr;
    *ierr = MPI_Win_allocate(*size, *disp_unit, *info, *comm, &base, win);
    if (*ierr == MPI_SUCCESS) *baseptr = reinterpret_cast<MPI_Aint>(base);
}
#pragma weak mpi_win_allocate_ = pmpi_win_allocate_

void pmpi_win_allocate_shared_(const MPI_Aint* size, const MPI_Fint* disp_unit,
                               const MPI_Fint* info, const MPI_Fint* comm, MPI_Aint* baseptr,
                               MPI_Fint* win, MPI_Fint* ierr) {
    void* base = nullptr;
    *ierr = MPI_Win_allocate_shared(*size, *disp_unit, *info, *comm, &base, win);
    if (*ierr == MPI_SUCCESS) *baseptr = reinterpret_cast<MPI_Aint>(base);
}
#pragma weak mpi_win_allocate_shared_ = pmpi_win_allocate_shared_

void pmpi_win_shared_query_(const MPI_Fint* win, const MPI_Fint* rank, MPI_Aint* size,
                            MPI_Fint* disp_unit, MPI_Aint* baseptr, MPI_Fint* ierr) {
    void* base = nullptr;
    *ierr = MPI_Win_shared_query(*win, *rank, size, disp_unit, &base);
    if (*ierr == MPI_SUCCESS) *baseptr = reinterpret_cast<MPI_Aint>(base);
}
#pragma weak mpi_win_shared_query_ = pmpi_win_shared_query_

void pmpi_info_set_(const MPI_Fint* info, const char* key, const char* value, MPI_Fint* ierr,
                    std::size_t key_length, std::size_t value_length) {
    *ierr = MPI_Info_set(*info, info_string_in(key, key_length).c_str(),
                         info_string_in(value, value_length).c_str());
}
#pragma weak mpi_info_set_ = pmpi_info_set_

void pmpi_info_get_(const MPI_Fint* info, const char* key, const MPI_Fint* valuelen, char* value,
                    MPI_Fint* flag, MPI_Fint* ierr, std::size_t key_length,
                    std::size_t value_length) {
    std::string text(static_cast<std::size_t>(std::max(*valuelen, 0)) + 1, '\0');
    *ierr =
        MPI_Info_get(*info, info_string_in(key, key_length).c_str(), *valuelen, text.data(), flag);
    if (*ierr == MPI_SUCCESS && *flag) string_out(text.c_str(), value, value_length);
}
#pragma weak mpi_info_get_ = pmpi_info_get_

void pmpi_info_get_valuelen_(const MPI_Fint* info, const char* key, MPI_Fint* valuelen,
                             MPI_Fint* flag, MPI_Fint* ierr, std::size_t key_length) {
    *ierr = MPI_Info_get_valuelen(*info, info_string_in(key, key_length).c_str(), valuelen, flag);
}
#pragma weak mpi_info_get_valuelen_ = pmpi_info_get_valuelen_

void pmpi_info_delete_(const MPI_Fint* info, const char* key, MPI_Fint* ierr,
                       std::size_t key_length) {
    *ierr = MPI_Info_delete(*info, info_string_in(key, key_length).c_str());
}
#pragma weak mpi_info_delete_ = pmpi_info_delete_

void pmpi_info_get_nthkey_(const MPI_Fint* info, const MPI_Fint* n, char* key, MPI_Fint* ierr,
                           std::size_t key_length) {
    std::string text(MPI_MAX_INFO_KEY + 1, '\0');
    text_result(MPI_Info_get_nthkey(*info, *n, text.data()), text, key, key_length, nullptr, ierr);
}
#pragma weak mpi_info_get_nthkey_ = pmpi_info_get_nthkey_

// MPI-4: *buflen is the room in value on input (0: value untouched) and the
// value's length on output (Fortran strings carry no terminator).
void pmpi_info_get_string_(const MPI_Fint* info, const char* key, MPI_Fint* buflen, char* value,
                           MPI_Fint* flag, MPI_Fint* ierr, std::size_t key_length,
                           std::size_t value_length) {
    const std::size_t room = std::min(static_cast<std::size_t>(std::max(*buflen, 0)), value_length);
    std::string text(room + 1, '\0');
    int c_buflen = static_cast<int>(room + 1);
    *ierr = MPI_Info_get_string(*info, info_string_in(key, key_length).c_str(), &c_buflen,
                                text.data(), flag);
    if (*ierr != MPI_SUCCESS || !*flag) return;
    if (room > 0) string_out(text.c_str(), value, value_length);
    *buflen = c_buflen - 1;
}
#pragma weak mpi_info_get_string_ = pmpi_info_get_string_

// Fortran has no argc/argv to give: the process's own command line.
void pmpi_info_create_env_(MPI_Fint* info, MPI_Fint* ierr) {
    *ierr = MPI_Info_create_env(0, nullptr, info);
}
#pragma weak mpi_info_create_env_ = pmpi_info_create_env_

// ---- callbacks ------------------------------------------------------------------

void pmpi_grequest_start_(GrequestQuery* query, GrequestFree* free, GrequestCancel* cancel,
                          const MPI_Aint* extra_state, MPI_Fint* request, MPI_Fint* ierr) {
    auto* g = new FortranGrequest{query, free, cancel, *extra_state};
    *ierr = MPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, g, request);
    if (*ierr != MPI_SUCCESS) delete g;
}
#pragma weak mpi_grequest_start_ = pmpi_grequest_start_

// ---- MPI-1's removed calls: addresses as default INTEGERs ------------------------

// An address or extent that does not fit an INTEGER is an error, as in MPICH.
// Callers take rc before passing `value`: argument order is unspecified.
void integer_address(int rc, MPI_Aint value, MPI_Fint* out, MPI_Fint* ierr) {
    *ierr = rc;
    if (rc != MPI_SUCCESS) return;
    *out = static_cast<MPI_Fint>(value);
    if (*out != value) *ierr = MPI_ERR_ARG;
}

// MPI_Type_extent, _lb and _ub.
void type_query(int (*query)(MPI_Datatype, MPI_Aint*), MPI_Datatype datatype, MPI_Fint* out,
                MPI_Fint* ierr) {
    MPI_Aint value = 0;
    const int rc = query(datatype, &value);
    integer_address(rc, value, out, ierr);
}

void pmpi_address_(void* location, MPI_Fint* address, MPI_Fint* ierr) {
    MPI_Aint value = 0;
    const int rc = MPI_Address(si::fortran::buffer(location), &value);
    integer_address(rc, value, address, ierr);
}
#pragma weak mpi_address_ = pmpi_address_

void pmpi_type_extent_(const MPI_Fint* datatype, MPI_Fint* extent, MPI_Fint* ierr) {
    type_query(MPI_Type_extent, *datatype, extent, ierr);
}
#pragma weak mpi_type_extent_ = pmpi_type_extent_

void pmpi_type_lb_(const MPI_Fint* datatype, MPI_Fint* displacement, MPI_Fint* ierr) {
    type_query(MPI_Type_lb, *datatype, displacement, ierr);
}
#pragma weak mpi_type_lb_ = pmpi_type_lb_

void pmpi_type_ub_(const MPI_Fint* datatype, MPI_Fint* displacement, MPI_Fint* ierr) {
    type_query(MPI_Type_ub, *datatype, displacement, ierr);
}
#pragma weak mpi_type_ub_ = pmpi_type_ub_

void pmpi_type_hvector_(const MPI_Fint* count, const MPI_Fint* blocklength, const MPI_Fint* stride,
                        const MPI_Fint* oldtype, MPI_Fint* newtype, MPI_Fint* ierr) {
    *ierr = MPI_Type_hvector(*count, *blocklength, *stride, *oldtype, newtype);
}
#pragma weak mpi_type_hvector_ = pmpi_type_hvector_

void pmpi_type_hindexed_(const MPI_Fint* count, MPI_Fint* blocklengths,
                         const MPI_Fint* displacements, const MPI_Fint* oldtype,
                         MPI_Fint* newtype, MPI_Fint* ierr) {
    std::vector<MPI_Aint> displs = wide(displacements, *count);
    *ierr = MPI_Type_hindexed(*count, blocklengths, displs.data(), *oldtype, newtype);
}
#pragma weak mpi_type_hindexed_ = pmpi_type_hindexed_

void pmpi_type_struct_(const MPI_Fint* count, MPI_Fint* blocklengths,
                       const MPI_Fint* displacements, MPI_Fint* types, MPI_Fint* newtype,
                       MPI_Fint* ierr) {
    std::vector<MPI_Aint> displs = wide(displacements, *count);
    *ierr = MPI_Type_struct(*count, blocklengths, displs.data(), types, newtype);
}
#pragma weak mpi_type_struct_ = pmpi_type_struct_

// ---- 1-based indices ---------------------------------------------------------------

void pmpi_waitany_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* status,
                   MPI_Fint* ierr) {
    si::fortran::StatusArg status_c(status);
    *ierr = MPI_Waitany(*count, requests, index, status_c.get());
    if (*ierr == MPI_SUCCESS) *index = to_fortran_index(*index);
}
#pragma weak mpi_waitany_ = pmpi_waitany_

void pmpi_testany_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* flag,
                   MPI_Fint* status, MPI_Fint* ierr) {
    si::fortran::StatusArg status_c(status);
    *ierr = MPI_Testany(*count, requests, index, flag, status_c.get());
    if (*ierr == MPI_SUCCESS) *index = to_fortran_index(*index);
}
#pragma weak mpi_testany_ = pmpi_testany_

void pmpi_waitsome_(const MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount,
                    MPI_Fint* indices, MPI_Fint* statuses, MPI_Fint* ierr) {
    si::fortran::StatusArray statuses_c(statuses, *incount);
    *ierr = MPI_Waitsome(*incount, requests, outcount, indices, statuses_c.get());
    if (*ierr != MPI_SUCCESS || *outcount == MPI_UNDEFINED) return;
    for (int i = 0; i < *outcount; ++i) indices[i] = to_fortran_index(indices[i]);
}
#pragma weak mpi_waitsome_ = pmpi_waitsome_

void pmpi_testsome_(const MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount,
                    MPI_Fint* indices, MPI_Fint* statuses, MPI_Fint* ierr) {
    si::fortran::StatusArray statuses_c(statuses, *incount);
    *ierr = MPI_Testsome(*incount, requests, outcount, indices, statuses_c.get());
    if (*ierr != MPI_SUCCESS || *outcount == MPI_UNDEFINED) return;
    for (int i = 0; i < *outcount; ++i) indices[i] = to_fortran_index(indices[i]);
}
#pragma weak mpi_testsome_ = pmpi_testsome_

// ---- buffers ---------------------------------------------------------------------

// Fortran has no use for the detached buffer's address (it names the
// buffer itself), so it is not written into the caller's argument.
void pmpi_buffer_detach_(void* /*buffer_addr*/, MPI_Fint* size, MPI_Fint* ierr) {
    void* address = nullptr;
    *ierr = MPI_Buffer_detach(&address, size);
}
#pragma weak mpi_buffer_detach_ = pmpi_buffer_detach_

}  // extern "C"
