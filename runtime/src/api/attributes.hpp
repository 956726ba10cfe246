// Attribute caching (MPI-3.1 section 6.7): user keys with copy and delete
// callbacks, and the values programs attach to communicators, datatypes and
// windows under them. The object calls tell this module when an object is
// duplicated or freed.
#pragma once

#include <memory>

#include "api/errors.hpp"

namespace si::api {

enum class AttributeHost { communicator, datatype, window };

// After MPI_Comm_dup / MPI_Type_dup made `copy`: runs the copy callback of
// each of the original's attributes and attaches what they return. A
// callback's failure is reported through `call` and returned.
int copy_attributes(Call& call, AttributeHost host, int original, int copy);

// The values the copy callbacks returned for a duplicate that does not exist
// yet. MPI_Comm_idup runs the callbacks in the call, where the program
// expects them (they see only the original, and may call MPI), and attaches
// their values when the duplicate is made, from whichever thread completes
// the operation.
class CopiedAttributes {
  public:
    CopiedAttributes();
    CopiedAttributes(CopiedAttributes&&) noexcept;
    CopiedAttributes& operator=(CopiedAttributes&&) noexcept;
    ~CopiedAttributes();  // values never attached are dropped, as no object holds them

  private:
    friend int copy_attributes(Call& call, AttributeHost host, int original,
                               CopiedAttributes& out);
    friend void attach_attributes(AttributeHost host, int copy, CopiedAttributes&& copied);
    struct Values;
    std::unique_ptr<Values> values_;
};
// Runs the copy callbacks of original's attributes into `out` (what they
// returned before a failure stays there).
int copy_attributes(Call& call, AttributeHost host, int original, CopiedAttributes& out);
// Gives `copy` the values; takes no lock but the attributes' own.
void attach_attributes(AttributeHost host, int copy, CopiedAttributes&& copied);

// MPI_Win_get_attr for the keys programs made (win.cpp answers the
// predefined window attributes itself).
int get_window_attribute(const char* function, MPI_Win win, int keyval, void* attribute_val,
                         int* flag);

// Before MPI_Comm_free / MPI_Type_free / MPI_Win_free (and MPI_Finalize, for MPI_COMM_SELF):
// runs every delete callback and drops the attributes. A callback's failure
// is reported through `call` and returned, and its attribute stays (the
// caller then keeps the object); the others still run.
int delete_attributes(Call& call, AttributeHost host, int object);
// For an object that goes away after a failure (a duplicate whose copy
// callback failed): runs the delete callbacks, ignoring their errors, and
// drops every attribute, so that a later object with the handle starts bare.
void discard_attributes(AttributeHost host, int object);

}  // namespace si::api
