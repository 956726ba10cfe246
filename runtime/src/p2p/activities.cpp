// The engine's activities (activity.hpp): started here, advanced by every
// progress pass (Engine::progress_locked), counted when a background
// thread's pass advanced them.
#include "p2p/engine.hpp"

namespace si::p2p {

Request* Engine::start(std::unique_ptr<Activity> activity) {
    Activity& kept = *activity;
    return start(Running{nullptr, &kept, std::move(activity)});
}

Request* Engine::start(Activity& activity) { return start(Running{nullptr, &activity, nullptr}); }

Request* Engine::start(Running running) {
    ProgressGuard guard(lock_);
    Request* request = pool_.acquire(Request::Kind::send);
    request->phase = Request::Phase::running;
    if (running.activity->advance(*this)) {
        request->result.error = running.activity->result();
        complete(request);
    } else {
        running.request = request;
        activities_.push_back(std::move(running));
    }
    return request;
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
        running.request->result.error = running.activity->result();
        complete(running.request);
        running = std::move(activities_.back());
        activities_.pop_back();
        ++finished;
    }
    return finished;
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
