// A sender's claim of a receiver's posted receive for direct delivery
// (p2p/direct.cpp; the receiver's side: progress/smart_delivery.cpp). The
// sender reads the receiver's IRB without its progress lock, while the
// receiver may be posting receives, so the claim goes in two steps: a look at
// the receiver's block, then a scan of its IRB that is valid only if no
// receive was posted between the look and the claim (otherwise the scan may
// have passed an entry before an earlier receive filled it, and then claimed
// a later one).
#pragma once

#include <cstdint>
#include <optional>

#include "node/region.hpp"
#include "p2p/engine.hpp"

namespace si::progress {

struct ReceiverLook {
    bool claimable = false;  // computing, with every posted receive in its IRB
    std::uint32_t receives_posted = 0;
};

ReceiverLook look_at_receiver(const node::RankBlock& receiver);

// Claims, for `claimant` (a world rank), the first posted receive of rank
// `local` that `tuple` (an RTS) matches. `receiver_world` goes into the
// target. The claim stands only if posted_since(look) is false afterwards.
std::optional<p2p::DirectTarget> claim_first_match(const node::Region& region, int local,
                                                   const ReceiverLook& look, std::uint64_t tuple,
                                                   int claimant, int receiver_world);

// Whether the receiver posted a receive since `look`. Read after the claim's
// compare-and-swap (a full barrier); the receiver counts a receive before it
// publishes it (SmartProgress::receive_posted), so one posted during the scan
// shows here.
bool posted_since(const node::RankBlock& receiver, const ReceiverLook& look);

}  // namespace si::progress
