// Datatype and reduction-operator entry points: argument checks, then the
// datatype layer.
#include <climits>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "datatype/op.hpp"

namespace si::api {

namespace {

// Any existing type, committed or not (constructors and queries accept both).
int existing_type(Call& call, MPI_Datatype handle, const datatype::Type*& out,
                  const char* argument = "datatype") {
    if (handle == MPI_DATATYPE_NULL)
        return call.fail(MPI_ERR_TYPE, "{} is MPI_DATATYPE_NULL", argument);
    out = datatype::lookup(handle);
    if (out == nullptr)
        return call.fail(MPI_ERR_TYPE, "{} {:#x} is not an existing datatype ({})", argument,
                         handle, kind_name(handle));
    return MPI_SUCCESS;
}

}  // namespace

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    Call call("MPI_Type_contiguous");
    if (int rc = call.count(count)) return rc;
    const si::datatype::Type* old = nullptr;
    if (int rc = existing_type(call, oldtype, old, "oldtype")) return rc;
    if (int rc = call.not_null(newtype, "newtype")) return rc;
    if (int error_class = si::datatype::create_contiguous(count, oldtype, *newtype))
        return call.fail(error_class, "cannot build contiguous({} x {}): {}", count, old->name,
                         error_class == MPI_ERR_COUNT ? "the type's size overflows"
                                                      : "too many derived datatypes exist");
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype* datatype) {
    Call call("MPI_Type_commit");
    if (int rc = call.not_null(datatype, "datatype")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = existing_type(call, *datatype, type)) return rc;
    if (int error_class = si::datatype::commit(*datatype))
        return call.fail(error_class, "cannot commit {}", type->name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype* datatype) {
    Call call("MPI_Type_free");
    if (int rc = call.not_null(datatype, "datatype")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = existing_type(call, *datatype, type)) return rc;
    if (type->predefined)
        return call.fail(MPI_ERR_TYPE, "datatype {} is predefined and cannot be freed", type->name);
    if (int error_class = si::datatype::free_type(*datatype))
        return call.fail(error_class, "cannot free {}", type->name);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int* size) {
    Call call("MPI_Type_size");
    if (int rc = call.not_null(size, "size")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = existing_type(call, datatype, type)) return rc;
    *size = type->size > static_cast<std::size_t>(INT_MAX) ? MPI_UNDEFINED
                                                            : static_cast<int>(type->size);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
    Call call("MPI_Type_get_extent");
    if (int rc = call.not_null(lb, "lb")) return rc;
    if (int rc = call.not_null(extent, "extent")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = existing_type(call, datatype, type)) return rc;
    *lb = type->lb;
    *extent = static_cast<MPI_Aint>(type->extent);
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
    Call call("MPI_Op_create");
    if (int rc = call.not_null(reinterpret_cast<const void*>(user_fn), "user_fn")) return rc;
    if (int rc = call.not_null(op, "op")) return rc;
    if (int error_class = si::datatype::create_op(user_fn, commute != 0, *op))
        return call.fail(error_class, "too many user operations exist");
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op* op) {
    Call call("MPI_Op_free");
    if (int rc = call.not_null(op, "op")) return rc;
    const si::datatype::Op* found = si::datatype::lookup_op(*op);
    if (found == nullptr)
        return call.fail(MPI_ERR_OP, "op {:#x} is not an existing operation ({})", *op,
                         kind_name(*op));
    if (found->predefined)
        return call.fail(MPI_ERR_OP, "op {} is predefined and cannot be freed", found->name);
    if (int error_class = si::datatype::free_op(*op))
        return call.fail(error_class, "cannot free {}", found->name);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op) {
    Call call("MPI_Reduce_local");
    const si::datatype::Type* type = nullptr;
    if (int rc = call.message(inbuf, count, datatype, type, "inbuf")) return rc;
    if (int rc = call.buffer(inoutbuf, count, "inoutbuf")) return rc;
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return call.fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here");
    const si::datatype::Op* reduction = nullptr;
    if (int rc = call.reduction(op, *type, reduction)) return rc;
    si::datatype::apply(*reduction, *type, inbuf, inoutbuf, static_cast<std::size_t>(count));
    return MPI_SUCCESS;
}

}  // extern "C"
