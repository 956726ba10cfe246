// The C side of the language interoperability: handles are the same integer
// in both languages, statuses the same bytes, and Fortran's sentinels live in
// the common blocks defined here.
#include <cstring>

#include "fortran/arguments.hpp"

extern "C" {

// Zero-initialised storage of the sentinels' common blocks (arguments.hpp).
si::fortran::Private1 mpipriv1_;
si::fortran::Private2 mpipriv2_;
si::fortran::PrivateCharacters mpiprivc_;
MPI_Fint mpifcmb5_;
MPI_Fint mpifcmb9_;

MPI_Fint* MPI_F_STATUS_IGNORE = mpipriv1_.status_ignore;
MPI_Fint* MPI_F_STATUSES_IGNORE = mpipriv2_.statuses_ignore;

#define SI_HANDLE_CONVERSIONS(Kind, CType)     \
    CType PMPI_##Kind##_f2c(MPI_Fint handle) { \
        return static_cast<CType>(handle);     \
    }                                          \
    MPI_Fint PMPI_##Kind##_c2f(CType handle) { \
        return static_cast<MPI_Fint>(handle);  \
    }

SI_HANDLE_CONVERSIONS(Comm, MPI_Comm)
SI_HANDLE_CONVERSIONS(Type, MPI_Datatype)
SI_HANDLE_CONVERSIONS(Group, MPI_Group)
SI_HANDLE_CONVERSIONS(Request, MPI_Request)
SI_HANDLE_CONVERSIONS(Op, MPI_Op)
SI_HANDLE_CONVERSIONS(Info, MPI_Info)
SI_HANDLE_CONVERSIONS(Errhandler, MPI_Errhandler)
SI_HANDLE_CONVERSIONS(Message, MPI_Message)
#undef SI_HANDLE_CONVERSIONS

#pragma weak MPI_Comm_f2c = PMPI_Comm_f2c
#pragma weak MPI_Comm_c2f = PMPI_Comm_c2f
#pragma weak MPI_Type_f2c = PMPI_Type_f2c
#pragma weak MPI_Type_c2f = PMPI_Type_c2f
#pragma weak MPI_Group_f2c = PMPI_Group_f2c
#pragma weak MPI_Group_c2f = PMPI_Group_c2f
#pragma weak MPI_Request_f2c = PMPI_Request_f2c
#pragma weak MPI_Request_c2f = PMPI_Request_c2f
#pragma weak MPI_Op_f2c = PMPI_Op_f2c
#pragma weak MPI_Op_c2f = PMPI_Op_c2f
#pragma weak MPI_Info_f2c = PMPI_Info_f2c
#pragma weak MPI_Info_c2f = PMPI_Info_c2f
#pragma weak MPI_Errhandler_f2c = PMPI_Errhandler_f2c
#pragma weak MPI_Errhandler_c2f = PMPI_Errhandler_c2f
#pragma weak MPI_Message_f2c = PMPI_Message_f2c
#pragma weak MPI_Message_c2f = PMPI_Message_c2f

// MPI-3.1 section 17.2.5: MPI_ERR_ARG for the ignore markers, which name no
// status.
#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
    if (f_status == nullptr || c_status == nullptr || f_status == MPI_F_STATUS_IGNORE ||
        f_status == MPI_F_STATUSES_IGNORE)
        return MPI_ERR_ARG;
    std::memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
    if (c_status == nullptr || f_status == nullptr || c_status == MPI_STATUS_IGNORE) {
        return MPI_ERR_ARG;
    }
    std::memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}

}  // extern "C"
