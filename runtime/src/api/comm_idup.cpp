// MPI_Comm_idup and MPI_Comm_idup_with_info: MPI_Comm_dup as a nonblocking
// collective.
//
// A duplicate needs a context pair free on every member. MPI_Comm_dup agrees
// on one with a blocking allreduce of the members' free-pair masks, retried
// while a member's mask is lent to another allocation
// (CommunicatorTable::allocate_pair). MPI_Comm_idup makes the same attempts
// without blocking anyone: a Duplication is an activity the progress engine
// advances (p2p/activity.hpp), and each of its attempts is a schedule, an
// allreduce of the offers on the parent's collective context in this idup's
// own tag range, that the activity advances from its own advance()
// (Schedule::detach). When an attempt is over the activity settles it with
// the table: it takes the agreed pair or, if a member's mask was lent
// elsewhere, makes the next attempt at the next progress pass (never spinning
// under the progress lock, where the allocation holding the mask may need to
// move on). Every member sees the same AND, so all retry together, and the
// attempts of one idup, the same on every member, reuse its tags safely:
// messages between two processes arrive in the order they were sent. A
// rank's idup therefore moves on whatever it does meanwhile, point-to-point
// with a rank that calls MPI_Comm_idup later included.
//
// Idups take their pairs from a pool of their own (CommunicatorTable::
// PairPool): an attempt holds this process's mask of that pool until every
// member has joined it, which may be after a member has finished a blocking
// communicator creation on another communicator; drawing on the other pool,
// that creation is never held up by the idup, so the program cannot
// deadlock on it. Idups wait only for each other, with priorities as
// allocate_pair's (by the parent's context, then by the place of the call
// among the parent's collectives), so that several outstanding on one or
// several parents never livelock; and all of them move on at every progress
// pass.
//
// On an intercommunicator each group agrees on a pair of its own (the
// allreduce runs within the group), then the leaders trade them and pass the
// other group's on (coll::add_inter_exchange), as dup_intercommunicator does.
//
// The copy callbacks of the parent's attributes run in the call: they see
// only the parent, and they may call MPI, which they could not do under the
// progress lock. Their values are attached to the duplicate when it is made,
// and its handle written to *newcomm, before the request completes; MPI lets
// the program read *newcomm only after that.
#include <memory>
#include <vector>

#include "api/attributes.hpp"
#include "api/errors.hpp"
#include "api/info.hpp"
#include "api/nonblocking.hpp"
#include "api/requests.hpp"
#include "api/runtime.hpp"
#include "coll/intercomm.hpp"
#include "coll/schedule.hpp"
#include "datatype/datatype.hpp"
#include "datatype/op.hpp"

namespace si::api {

namespace {

class Duplication final : public p2p::Activity {
  public:
    Duplication(Communicator& parent, MPI_Comm* newcomm, CopiedAttributes attributes)
        : made_(parent),
          newcomm_(newcomm),
          attributes_(std::move(attributes)),
          priority_(parent.allocation_priority()) {
        // Tag ranges of the parent's, counted as every member counts them.
        if (parent.inter()) {
            const coll::InterContext ctx = next_nonblocking_inter_context(parent);
            remote_tag_base_ = ctx.remote.tag_base;
            local_tag_base_ = ctx.local.tag_base;
        } else {
            local_tag_base_ = next_nonblocking_context(parent).tag_base;
        }
        // The schedules address made_, which keeps the parent's ranks and
        // contexts until finish() gives it its own: the parent may be freed
        // meanwhile.
        made_.name.clear();
        made_.nonblocking_collectives = 0;
        made_.handle = MPI_COMM_NULL;
    }

    bool advance(p2p::Engine& engine) override {
        for (;;) {
            if (!running_) running_ = phase_ == Phase::agree ? next_attempt() : trade();
            if (!running_->advance(engine)) return false;
            const int rc = running_->result();
            running_.reset();
            if (phase_ == Phase::trade) return finish(rc);
            const int outcome =
                table().settle_offer(kPool, priority_, offered_, rc, agreed_, pair_);
            if (outcome == CommunicatorTable::kRetry) return false;
            if (outcome != MPI_SUCCESS) return finish(outcome);
            holds_pair_ = true;
            if (!made_.inter()) return finish(MPI_SUCCESS);
            phase_ = Phase::trade;
        }
    }

    int result() const override { return error_; }

  private:
    enum class Phase { agree, trade };
    static constexpr CommunicatorTable::PairPool kPool = CommunicatorTable::PairPool::nonblocking;

    static CommunicatorTable& table() { return Runtime::get()->communicators; }

    // A schedule on the parent's collective context(s), in this idup's tag
    // range(s), advanced by this activity.
    std::unique_ptr<coll::Schedule> new_schedule(coll::Tag tag) const {
        std::unique_ptr<coll::Schedule> s;
        if (made_.inter()) {
            coll::InterContext ctx = inter_collective_context(made_);
            ctx.remote.tag_base = remote_tag_base_;
            ctx.local.tag_base = local_tag_base_;
            s = std::make_unique<coll::Schedule>(ctx, tag);
        } else {
            coll::Context ctx = collective_context(made_);
            ctx.tag_base = local_tag_base_;
            s = std::make_unique<coll::Schedule>(ctx, tag);
        }
        return s;
    }

    // Offers this process's free pairs (or nothing, while another allocation
    // holds them) and ANDs the offers of the parent's group.
    std::unique_ptr<coll::Schedule> next_attempt() {
        offered_ = table().offer_pairs(kPool, priority_, offer_);
        agreed_.assign(offer_.size(), 0);
        auto s = new_schedule(coll::Tag::reduce);
        coll::add_allreduce(*s, offer_.data(), agreed_.data(), offer_.size(),
                            *datatype::lookup(MPI_UINT64_T), *datatype::lookup_op(MPI_BAND));
        s->detach();
        return s;
    }

    // An intercommunicator's groups tell each other the pairs they took.
    std::unique_ptr<coll::Schedule> trade() {
        auto s = new_schedule(coll::Tag::bcast);
        coll::add_inter_exchange(*s, &pair_, &remote_pair_, sizeof pair_);
        s->detach();
        return s;
    }

    // Makes the duplicate, or gives back what an error left taken; true, for
    // advance() to return.
    bool finish(int rc) {
        if (rc != MPI_SUCCESS) {
            if (holds_pair_) table().release_pair(pair_);
            error_ = rc;
            return true;
        }
        made_.pair = pair_;
        if (made_.inter()) made_.remote_pair = remote_pair_;
        const MPI_Comm handle = table().add(std::make_unique<Communicator>(std::move(made_)));
        attach_attributes(AttributeHost::communicator, handle, std::move(attributes_));
        *newcomm_ = handle;
        return true;
    }

    Communicator made_;
    MPI_Comm* newcomm_;
    CopiedAttributes attributes_;
    std::uint64_t priority_;
    int local_tag_base_ = 0;
    int remote_tag_base_ = 0;
    Phase phase_ = Phase::agree;
    std::unique_ptr<coll::Schedule> running_;
    std::vector<std::uint64_t> offer_;
    std::vector<std::uint64_t> agreed_;
    bool offered_ = false;
    bool holds_pair_ = false;
    std::uint16_t pair_ = 0;
    std::uint16_t remote_pair_ = 0;
    int error_ = MPI_SUCCESS;
};

int start_duplication(Call& call, MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(newcomm, "newcomm")) return rc;
    if (int rc = call.not_null(request, "request")) return rc;
    // A failing callback leaves the call before its agreement starts, as a
    // bad argument does: the other members' idups then wait for this one.
    CopiedAttributes attributes;
    if (int rc = copy_attributes(call, AttributeHost::communicator, comm, attributes)) return rc;
    p2p::Request* started = Runtime::get()->engine->start(
        std::make_unique<Duplication>(*c, newcomm, std::move(attributes)));
    started->owner = comm;
    *request = handle_of(started);
    return MPI_SUCCESS;
}

}  // namespace

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
    Call call("MPI_Comm_idup");
    if (int rc = call.initialized()) return rc;
    return start_duplication(call, comm, newcomm, request);
}

// Hints are accepted and ignored, as by MPI_Comm_dup_with_info (comm.cpp).
#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                             MPI_Request* request) {
    Call call("MPI_Comm_idup_with_info");
    if (int rc = call.initialized()) return rc;
    if (int rc = check_info(call, info)) return rc;
    return start_duplication(call, comm, newcomm, request);
}

}  // extern "C"
