// An arrival that found no posted receive. The engine keeps them in arrival
// order; a matched probe (MPI_Mprobe) takes one out and hands it to the API
// layer until MPI_Mrecv consumes it.
#pragma once

#include <cstddef>
#include <vector>

#include "p2p/engine.hpp"
#include "p2p/tuple.hpp"
#include "p2p/wire.hpp"

namespace si::p2p {

struct Engine::Unexpected {
    Tuple tuple;
    MatchLinks<Unexpected> links;  // next to the tuple: what a queue scan reads
    int peer;                     // world rank of the sender
    RtsHeader rts;                // kind == rts
    std::vector<std::byte> data;  // kind == eager

    std::size_t bytes() const { return tuple.kind == MessageKind::eager ? data.size() : rts.bytes; }
    Completion completion() const { return Completion{tuple.source, tuple.tag, 0, bytes()}; }
};

inline std::optional<std::uint64_t> Engine::UnexpectedKey::operator()(const Unexpected& u) const {
    return match_key(u.tuple);
}

}  // namespace si::p2p
