// The 8-byte matching tuple that leads every control message.
//
// It is the first element of every transport send and lands in the receiver's
// helper-visible ICB slot, apart from the message body, so that a helper
// process can see what arrived for a rank without touching the transport.
// Layout (bit 0 first):
//   kind     2 bits   0 = empty slot, eager, rendezvous RTS, protocol control
//   context 14 bits   communicator context id
//   source  20 bits   sender's rank in that communicator
//   tag     28 bits   MPI tag (MPI_TAG_UB = 2^28 - 1)
#pragma once

#include <cstdint>
#include <optional>

namespace si::p2p {

enum class MessageKind : std::uint8_t { empty = 0, eager = 1, rts = 2, control = 3 };

inline constexpr int kTagBits = 28;
inline constexpr int kSourceBits = 20;
inline constexpr int kContextBits = 14;
inline constexpr int kMaxTag = (1 << kTagBits) - 1;
inline constexpr int kMaxRank = (1 << kSourceBits) - 1;
inline constexpr int kMaxContext = (1 << kContextBits) - 1;

struct Tuple {
    MessageKind kind;
    std::uint16_t context;
    std::int32_t source;
    std::int32_t tag;

    constexpr std::uint64_t pack() const {
        return static_cast<std::uint64_t>(kind) | static_cast<std::uint64_t>(context) << 2 |
               static_cast<std::uint64_t>(source) << 16 | static_cast<std::uint64_t>(tag) << 36;
    }

    static constexpr Tuple unpack(std::uint64_t bits) {
        return Tuple{static_cast<MessageKind>(bits & 3),
                     static_cast<std::uint16_t>((bits >> 2) & kMaxContext),
                     static_cast<std::int32_t>((bits >> 16) & kMaxRank),
                     static_cast<std::int32_t>(bits >> 36)};
    }

    friend constexpr bool operator==(const Tuple&, const Tuple&) = default;
};

// The (context, source, tag) of a tuple without its kind: what the matching
// queues file an entry under (match_queue.hpp).
constexpr std::uint64_t match_key(const Tuple& t) {
    return Tuple{MessageKind::empty, t.context, t.source, t.tag}.pack();
}

// What a receive asks for; source and tag may be wildcards.
struct MatchSpec {
    static constexpr std::int32_t kAnySource = -2;  // MPI_ANY_SOURCE
    static constexpr std::int32_t kAnyTag = -1;

    std::uint16_t context;
    std::int32_t source;
    std::int32_t tag;

    constexpr bool matches(const Tuple& t) const {
        return t.context == context && (source == kAnySource || source == t.source) &&
               (tag == kAnyTag || tag == t.tag);
    }
    // The match_key() of the only tuples it matches, none with a wildcard.
    constexpr std::optional<std::uint64_t> key() const {
        if (source == kAnySource || tag == kAnyTag) return std::nullopt;
        return match_key(Tuple{MessageKind::empty, context, source, tag});
    }
};

// The interrupt request (IRD) of a receive: an RTS tuple t asks for the
// receive exactly when (t.pack() & mask) == value. Wildcard fields are left
// out of the mask; the kind bits are in it, so only RTS tuples ever match and
// an empty ICB slot (0) never does. value is never 0 (its kind is rts).
struct InterruptPattern {
    std::uint64_t value;
    std::uint64_t mask;

    constexpr bool asked_by(std::uint64_t tuple) const { return (tuple & mask) == value; }
};

constexpr InterruptPattern interrupt_pattern(const MatchSpec& spec) {
    constexpr std::uint64_t kKindMask = 3;
    constexpr std::uint64_t kContextMask = std::uint64_t{kMaxContext} << 2;
    constexpr std::uint64_t kSourceMask = std::uint64_t{kMaxRank} << 16;
    constexpr std::uint64_t kTagMask = std::uint64_t{kMaxTag} << 36;
    const bool any_source = spec.source == MatchSpec::kAnySource;
    const bool any_tag = spec.tag == MatchSpec::kAnyTag;
    const Tuple tuple{MessageKind::rts, spec.context, any_source ? 0 : spec.source,
                      any_tag ? 0 : spec.tag};
    return InterruptPattern{tuple.pack(), kKindMask | kContextMask |
                                              (any_source ? 0 : kSourceMask) |
                                              (any_tag ? 0 : kTagMask)};
}

}  // namespace si::p2p
