// An operation the progress engine drives in the background: a nonblocking
// collective's schedule (coll/schedule.hpp), an RMA window's epochs (rma/). Every progress pass, whoever
// makes it (a blocked call, MPI_Test, the progress thread, an interrupt
// thread woken by a helper), advances every activity a step, so that an
// activity moves on while the application computes as far as its messages do.
#pragma once

#include "p2p/request.hpp"

namespace si::p2p {

class Engine;

class Activity {
public:
    virtual ~Activity() = default;
    // Called with the rank's progress lock held, once at the start and then
    // from every progress pass until it returns true: starts what can start
    // (Engine::isend_locked, irecv_locked), takes what finished. True once
    // the whole operation is over; result() is then final.
    virtual bool advance(Engine& engine) = 0;
    // An error class (0 for success) once advance() returned true.
    virtual int result() const = 0;
    // What the request reports once advance() returned true: by default only
    // result(); an operation with a status of its own (a receive a ghost
    // process made, progress/ghost_client.hpp) says more.
    virtual Completion completion() const {
        Completion done;
        done.error = result();
        return done;
    }
    // True while it waits for memory a peer writes one-sidedly (an RMA
    // epoch's grant or completion counter), which rings no doorbell: a
    // blocked call then keeps polling instead of sleeping.
    virtual bool polls_memory() const { return false; }
    // MPI_Cancel on its request (with the progress lock held): it may then
    // complete as cancelled. By default it cannot be cancelled and completes
    // as usual, which MPI allows.
    virtual void cancel() {}
};

}  // namespace si::p2p
