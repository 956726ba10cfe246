// MPI_Type_create_f90_real, _complex and _integer, and MPI_Type_match_size:
// the types of Fortran's parameterised kinds (MPI-3.1 section 17.2.5), as
// gfortran has them (datatype.hpp).
#include "api/errors.hpp"
#include "datatype/datatype.hpp"

using namespace si::api;

namespace {

int create_f90(const char* function, int combiner, int p, int r, MPI_Datatype* newtype) {
    Call call(function);
    if (int rc = call.not_null(newtype, "newtype")) return rc;
    if (int error_class = si::datatype::f90_type(combiner, p, r, *newtype)) {
        if (error_class == MPI_ERR_ARG)
            return call.fail(error_class, "{}", si::datatype::f90_error(combiner, p, r));
        return call.fail(error_class, "too many derived datatypes exist");
    }
    return MPI_SUCCESS;
}

const char* typeclass_name(int typeclass) {
    switch (typeclass) {
        case MPI_TYPECLASS_REAL:
            return "MPI_TYPECLASS_REAL";
        case MPI_TYPECLASS_INTEGER:
            return "MPI_TYPECLASS_INTEGER";
        case MPI_TYPECLASS_COMPLEX:
            return "MPI_TYPECLASS_COMPLEX";
        default:
            return nullptr;
    }
}

}  // namespace

extern "C" {

#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
    return create_f90("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
    return create_f90("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}

#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
    return create_f90("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, 0, r, newtype);
}

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
    Call call("MPI_Type_match_size");
    if (int rc = call.not_null(datatype, "datatype")) return rc;
    const char* name = typeclass_name(typeclass);
    if (name == nullptr)
        return call.fail(MPI_ERR_ARG,
                         "typeclass is {}; it must be MPI_TYPECLASS_REAL, MPI_TYPECLASS_INTEGER "
                         "or MPI_TYPECLASS_COMPLEX",
                         typeclass);
    const MPI_Datatype found = si::datatype::match_size(typeclass, size);
    if (found == MPI_DATATYPE_NULL)
        return call.fail(MPI_ERR_ARG, "no predefined type of {} has size {}", name, size);
    *datatype = found;
    return MPI_SUCCESS;
}

}  // extern "C"
