// A helper's reading of a rank's ICB (tuples of arrived messages) and IRB
// (receives that asked for help), which the rank writes while the helper
// reads: any words at all must give an answer, and the delivery words of
// direct delivery must unpack into the fields they were packed from.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "node/region.hpp"
#include "progress/helper.hpp"

using namespace si;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::size_t words = size / sizeof(std::uint64_t);
    auto word = [&](std::size_t i) {
        std::uint64_t w = 0;
        if (i < words) std::memcpy(&w, data + i * sizeof w, sizeof w);
        return w;
    };
    const std::size_t slots = word(0) % 64 + 1;
    std::vector<std::atomic<std::uint64_t>> icb(slots);
    for (std::size_t i = 0; i < slots; ++i) icb[i].store(word(1 + i));
    std::vector<node::InterruptRequest> irb(node::kIrbEntries);
    for (std::size_t e = 0; e < irb.size(); ++e) {
        const std::size_t at = 1 + slots + 3 * e;
        irb[e].value.store(word(at));
        irb[e].mask.store(word(at + 1));
        irb[e].delivery.store(word(at + 2));
        irb[e].eager_too.store(word(at) & 1);
        const node::DeliveryWord unpacked = node::DeliveryWord::unpack(word(at + 2));
        // The claimant field holds world ranks below 2^24 - 1 (the packing's width).
        if (unpacked.claimant < (1 << 24) - 2 &&
            node::DeliveryWord::unpack(unpacked.pack()).pack() != unpacked.pack())
            std::abort();
    }
    (void)progress::icb_slot_asking_for_help(icb, irb);
    return 0;
}
