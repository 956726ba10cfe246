#include "p2p/unexpected.hpp"

#include <cstring>

namespace si::p2p {

namespace {

std::uint64_t key_of(const UnexpectedMessage& message) {
    return match_key(message.tuple.context, message.tuple.source, message.tuple.tag);
}

}  // namespace

UnexpectedMessages::~UnexpectedMessages() {
    while (UnexpectedMessage* message = arrival_.front()) {
        arrival_.erase(message);
        delete message;
    }
    for (UnexpectedMessage* message : pool_) delete message;
}

UnexpectedMessage* UnexpectedMessages::make(const Tuple& tuple, int peer, const std::byte* body,
                                            std::size_t bytes) {
    UnexpectedMessage* message = nullptr;
    if (pool_.empty()) {
        message = new UnexpectedMessage{};
    } else {
        message = pool_.back();
        pool_.pop_back();
    }
    message->tuple = tuple;
    message->peer = peer;
    // assign() reuses the record's buffer when it is large enough.
    if (tuple.kind == MessageKind::eager)
        message->data.assign(body, body + bytes);
    else
        std::memcpy(&message->rts, body, sizeof message->rts);
    return message;
}

void UnexpectedMessages::recycle(UnexpectedMessage* message) {
    if (pool_.size() >= kPooledRecords) {
        delete message;
        return;
    }
    if (message->data.capacity() > kPooledBodyBytes) std::vector<std::byte>().swap(message->data);
    message->data.clear();
    pool_.push_back(message);
}

void UnexpectedMessages::push_back(UnexpectedMessage* message) {
    arrival_.push_back(message);
    by_key_.push_back(key_of(*message), message);
}

void UnexpectedMessages::erase(UnexpectedMessage* message) {
    arrival_.erase(message);
    by_key_.erase(key_of(*message), message);
}

UnexpectedMessage* UnexpectedMessages::find(const MatchSpec& spec) const {
    if (spec.source != MatchSpec::kAnySource && spec.tag != MatchSpec::kAnyTag)
        return by_key_.front(match_key(spec.context, spec.source, spec.tag));
    return arrival_.find(
        [&](const UnexpectedMessage& message) { return spec.matches(message.tuple); });
}

}  // namespace si::p2p
