// Datatype queries, commit and free, and the reduction-operator entry points
// (the constructors are in type_constructors.cpp, packing in pack.cpp).
#include <climits>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "api/attributes.hpp"
#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/packing.hpp"
#include "datatype/op.hpp"

using namespace si::api;

namespace {

// Names programs gave derived types (MPI_Type_set_name), by handle; a
// predefined type's name is its own and cannot change.
std::mutex g_names_mutex;
std::unordered_map<MPI_Datatype, std::string> g_names;

}  // namespace

extern "C" {

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype* datatype) {
    Call call("MPI_Type_commit");
    if (int rc = call.not_null(datatype, "datatype")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(*datatype, type)) return rc;
    if (int error_class = si::datatype::commit(*datatype))
        return call.fail(error_class, "cannot commit {}", type->name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype* datatype) {
    Call call("MPI_Type_free");
    if (int rc = call.not_null(datatype, "datatype")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(*datatype, type)) return rc;
    if (type->predefined)
        return call.fail(MPI_ERR_TYPE, "datatype {} is predefined and cannot be freed", type->name);
    if (int rc = delete_attributes(call, AttributeHost::datatype, *datatype)) return rc;
    {
        std::lock_guard lock(g_names_mutex);
        g_names.erase(*datatype);
    }
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
    if (int rc = call.any_datatype(datatype, type)) return rc;
    *size = type->size > static_cast<std::size_t>(INT_MAX) ? MPI_UNDEFINED
                                                            : static_cast<int>(type->size);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
    Call call("MPI_Type_size_x");
    if (int rc = call.not_null(size, "size")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(datatype, type)) return rc;
    *size = static_cast<MPI_Count>(type->size);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
    Call call("MPI_Type_get_extent");
    if (int rc = call.not_null(lb, "lb")) return rc;
    if (int rc = call.not_null(extent, "extent")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(datatype, type)) return rc;
    *lb = type->lb;
    *extent = static_cast<MPI_Aint>(type->extent);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
    Call call("MPI_Type_get_extent_x");
    if (int rc = call.not_null(lb, "lb")) return rc;
    if (int rc = call.not_null(extent, "extent")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(datatype, type)) return rc;
    *lb = type->lb;
    *extent = static_cast<MPI_Count>(type->extent);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
    Call call("MPI_Type_get_true_extent");
    if (int rc = call.not_null(true_lb, "true_lb")) return rc;
    if (int rc = call.not_null(true_extent, "true_extent")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(datatype, type)) return rc;
    *true_lb = type->true_lb;
    *true_extent = static_cast<MPI_Aint>(type->true_extent);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                MPI_Count* true_extent) {
    Call call("MPI_Type_get_true_extent_x");
    if (int rc = call.not_null(true_lb, "true_lb")) return rc;
    if (int rc = call.not_null(true_extent, "true_extent")) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(datatype, type)) return rc;
    *true_lb = type->true_lb;
    *true_extent = static_cast<MPI_Count>(type->true_extent);
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

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int* commute) {
    Call call("MPI_Op_commutative");
    if (int rc = call.not_null(commute, "commute")) return rc;
    const si::datatype::Op* found = si::datatype::lookup_op(op);
    if (found == nullptr)
        return call.fail(MPI_ERR_OP, "op {:#x} is not an existing operation ({})", op,
                         kind_name(op));
    *commute = found->commutative ? 1 : 0;
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
    // Both operands packed (a non-contiguous type), reduced, and unpacked again.
    const auto items = static_cast<std::size_t>(count);
    const Outgoing in(inbuf, items, *type);
    Incoming inout(inoutbuf, items, *type, true);
    si::datatype::apply(*reduction, *type, in.data(), inout.data(), items);
    inout.unpack(inout.capacity());
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
    Call call("MPI_Type_set_name");
    const si::datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(datatype, type)) return rc;
    if (int rc = call.not_null(type_name, "type_name")) return rc;
    // A predefined type may be renamed too, as in MPICH (its datatype/typename).
    std::lock_guard lock(g_names_mutex);
    g_names[datatype].assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
    return MPI_SUCCESS;
}

// A derived type nobody named has the empty name, as the standard says
// (error messages describe it by its construction instead); a predefined
// one its own unless renamed.
#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
    Call call("MPI_Type_get_name");
    const si::datatype::Type* type = nullptr;
    if (int rc = call.any_datatype(datatype, type)) return rc;
    if (int rc = call.not_null(type_name, "type_name")) return rc;
    if (int rc = call.not_null(resultlen, "resultlen")) return rc;
    std::string name = type->predefined ? type->name : "";
    {
        std::lock_guard lock(g_names_mutex);
        const auto it = g_names.find(datatype);
        if (it != g_names.end()) name = it->second;
    }
    std::memcpy(type_name, name.c_str(), name.size() + 1);
    *resultlen = static_cast<int>(name.size());
    return MPI_SUCCESS;
}

}  // extern "C"
