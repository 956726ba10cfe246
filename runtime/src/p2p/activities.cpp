// The engine's activities (activity.hpp): started here, advanced by every
// progress pass (Engine::progress_locked), counted when a background
// thread's pass advanced them.
#include "base/error_class.hpp"
#include "p2p/engine.hpp"

namespace si::p2p {

namespace {
constexpr int kErrOtherClass = error_class::kOther;
}  // namespace

Request* Engine::start(std::unique_ptr<Activity> activity, Request::Kind kind,
                       std::unique_ptr<CompletionHook>&& hook) {
    Activity& kept = *activity;
    return start(Running{nullptr, &kept, std::move(activity)}, kind, std::move(hook));
}

Request* Engine::start(Activity& activity) { return start(Running{nullptr, &activity, nullptr}); }

Request* Engine::start(Running running, Request::Kind kind,
                       std::unique_ptr<CompletionHook>&& hook) {
    ProgressGuard guard(lock_);
    Request* request = pool_.acquire(kind);
    request->phase = Request::Phase::running;
    request->hook = std::move(hook);
    if (running.activity->advance(*this)) {
        request->result = running.activity->completion();
        complete(request);
    } else {
        running.request = request;
        activities_.push_back(std::move(running));
    }
    return request;
}

void Engine::cancel_activity(Request* request) {
    for (Running& running : activities_)
        if (running.request == request) running.activity->cancel();
}

int Engine::advance_activities() {
    int finished = 0;
    // By index: an activity never starts another, so the vector does not
    // grow meanwhile, and finished ones are swapped out.
    for (std::size_t i = 0; i < activities_.size();) {
        Running& running = activities_[i];
        if (!running.activity->advance(*this)) {
            ++i;
            continue;
        }
        running.request->result = running.activity->completion();
        complete(running.request);
        running = std::move(activities_.back());
        activities_.pop_back();
        ++finished;
    }
    return finished;
}

bool Engine::activities_poll_memory() const {
    for (const Running& running : activities_)
        if (running.activity->polls_memory()) return true;
    return false;
}

Request* Engine::rdma_locked(int world_peer, Direction direction, void* local, std::size_t bytes,
                             transport::RemoteKey remote) {
    Request* request = pool_.acquire(Request::Kind::send);
    request->phase = Request::Phase::transferring;
    request->peer = world_peer;
    request->buffer = local;
    request->bytes = bytes;
    transport::Transport& transport = *transport_of_[world_peer];
    transport::Result result;
    if (direction == Direction::write) {
        ++stats_.rma_writes;
        stats_.rma_write_bytes += bytes;
        result = transport.rdma_write(world_peer, local, bytes, remote, request->wire_id());
    } else {
        ++stats_.rma_reads;
        stats_.rma_read_bytes += bytes;
        result = transport.rdma_read(world_peer, local, bytes, remote, request->wire_id());
    }
    if (result == transport::Result::posted) return request;
    // Neither transport answers retry for one-sided transfers; a failure was logged.
    if (result != transport::Result::done) request->result.error = kErrOtherClass;
    complete(request);
    return request;
}

int Engine::progress_in_background() {
    background_pass_ = true;
    const int events = progress_locked();
    background_pass_ = false;
    return events;
}

int Engine::progress_before_sleep(bool& armed) {
    armed = arm_transports();
    return progress_in_background();
}

}  // namespace si::p2p
