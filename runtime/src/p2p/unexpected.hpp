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
    int peer;                     // world rank of the sender
    RtsHeader rts;                // kind == rts
    std::vector<std::byte> data;  // kind == eager
    Unexpected* prev = nullptr;
    Unexpected* next = nullptr;

    std::size_t bytes() const { return tuple.kind == MessageKind::eager ? data.size() : rts.bytes; }
    Completion completion() const { return Completion{tuple.source, tuple.tag, 0, bytes()}; }
};

}  // namespace si::p2p
