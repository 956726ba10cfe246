// MPI_Type_get_envelope and MPI_Type_get_contents: how a derived type was
// built, from the record its constructor left (datatype::Envelope).
#include "api/errors.hpp"
#include "datatype/datatype.hpp"

using namespace si::api;
using si::datatype::Envelope;
using si::datatype::Type;

namespace {

// The record of a derived type; nullptr for a predefined one.
int envelope_of(Call& call, MPI_Datatype datatype, const Type*& type,
                std::shared_ptr<const Envelope>& out) {
    if (int rc = call.any_datatype(datatype, type)) return rc;
    out = type->envelope;
    if (type->predefined || out) return MPI_SUCCESS;
    return call.fail(MPI_ERR_INTERN, "{} has no record of its construction", type->name);
}

int room(Call& call, int max, std::size_t needed, const char* argument) {
    if (max >= static_cast<int>(needed)) return MPI_SUCCESS;
    return call.fail(MPI_ERR_ARG, "{} is {}; the type's constructor had {}", argument, max, needed);
}

}  // namespace

extern "C" {

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                           int* num_datatypes, int* combiner) {
    Call call("MPI_Type_get_envelope");
    const Type* type = nullptr;
    std::shared_ptr<const Envelope> e;
    if (int rc = envelope_of(call, datatype, type, e)) return rc;
    if (int rc = call.not_null(num_integers, "num_integers")) return rc;
    if (int rc = call.not_null(num_addresses, "num_addresses")) return rc;
    if (int rc = call.not_null(num_datatypes, "num_datatypes")) return rc;
    if (int rc = call.not_null(combiner, "combiner")) return rc;
    *combiner = e ? e->combiner : MPI_COMBINER_NAMED;
    *num_integers = e ? static_cast<int>(e->integers.size()) : 0;
    *num_addresses = e ? static_cast<int>(e->addresses.size()) : 0;
    *num_datatypes = e ? static_cast<int>(e->types.size()) : 0;
    return MPI_SUCCESS;
}

// Old types that are derived come back as new handles, which the caller frees.
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
    Call call("MPI_Type_get_contents");
    const Type* type = nullptr;
    std::shared_ptr<const Envelope> e;
    if (int rc = envelope_of(call, datatype, type, e)) return rc;
    if (!e)
        return call.fail(MPI_ERR_TYPE, "{} is predefined (MPI_COMBINER_NAMED): it has no contents",
                         type->name);
    if (int rc = room(call, max_integers, e->integers.size(), "max_integers")) return rc;
    if (int rc = room(call, max_addresses, e->addresses.size(), "max_addresses")) return rc;
    if (int rc = room(call, max_datatypes, e->types.size(), "max_datatypes")) return rc;
    std::copy(e->integers.begin(), e->integers.end(), array_of_integers);
    std::copy(e->addresses.begin(), e->addresses.end(), array_of_addresses);
    for (std::size_t i = 0; i < e->types.size(); ++i) {
        if (e->types[i].predefined) {
            array_of_datatypes[i] = e->handles[i];
        } else if (int error_class = si::datatype::store_copy(e->types[i], array_of_datatypes[i])) {
            return call.fail(error_class, "too many derived datatypes exist");
        }
    }
    return MPI_SUCCESS;
}

}  // extern "C"
