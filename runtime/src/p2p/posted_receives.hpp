// The posted-receive queue of a rank, in MPI's matching order: an arrival takes
// the first receive, in posting order, that matches it. Receives naming source
// and tag wait in the list of their exact (context, source, tag); receives with
// MPI_ANY_SOURCE or MPI_ANY_TAG wait in one wildcard list. Every posting gets a
// sequence number, and an arrival's candidates are its exact list merged with
// the wildcard receives it matches, oldest first, so posting order holds
// exactly across both. Matching costs a hash look-up plus a walk of the
// wildcard receives only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2p/bucket_index.hpp"
#include "p2p/intrusive_list.hpp"
#include "p2p/request.hpp"
#include "p2p/tuple.hpp"

namespace si::p2p {

class PostedReceives {
  public:
    bool empty() const { return wildcard_.empty() && exact_count_ == 0; }

    void push_back(Request* request) {
        request->sequence = next_sequence_++;
        if (is_wildcard(*request)) {
            wildcard_.push_back(request);
        } else {
            exact_.push_back(key_of(*request), request);
            ++exact_count_;
        }
    }

    void erase(Request* request) {
        if (is_wildcard(*request)) {
            wildcard_.erase(request);
        } else {
            exact_.erase(key_of(*request), request);
            --exact_count_;
        }
    }

    // The first receive, in posting order, that `tuple` matches and that
    // `accept` takes (it may refuse one: a receive another sender claimed,
    // ReceiveClaim::claimed_by_other), or nullptr. `accept` sees candidates
    // in posting order and nothing else.
    template <typename Accept>
    Request* find(const Tuple& tuple, Accept accept) const {
        const auto next_wildcard = [&](Request* from) {
            while (from != nullptr && !from->match.matches(tuple)) from = from->next;
            return from;
        };
        Request* exact = exact_.front(match_key(tuple.context, tuple.source, tuple.tag));
        Request* wildcard = next_wildcard(wildcard_.front());
        while (exact != nullptr || wildcard != nullptr) {
            const bool exact_first =
                wildcard == nullptr || (exact != nullptr && exact->sequence < wildcard->sequence);
            Request* candidate = exact_first ? exact : wildcard;
            if (exact_first)
                exact = exact->next;
            else
                wildcard = next_wildcard(wildcard->next);
            if (accept(*candidate)) return candidate;
        }
        return nullptr;
    }

  private:
    static bool is_wildcard(const Request& request) {
        return request.match.source == MatchSpec::kAnySource ||
               request.match.tag == MatchSpec::kAnyTag;
    }
    static std::uint64_t key_of(const Request& request) {
        return match_key(request.match.context, request.match.source, request.match.tag);
    }

    std::uint64_t next_sequence_ = 0;
    std::size_t exact_count_ = 0;
    BucketIndex<Request, &Request::prev, &Request::next> exact_;
    IntrusiveList<Request> wildcard_;
};

}  // namespace si::p2p
