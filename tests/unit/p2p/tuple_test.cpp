#include "p2p/tuple.hpp"

#include <gtest/gtest.h>

namespace si::p2p {
namespace {

TEST(Tuple, PacksAndUnpacksExtremes) {
    for (const Tuple t : {Tuple{MessageKind::eager, 0, 0, 0},
                          Tuple{MessageKind::rts, kMaxContext, kMaxRank, kMaxTag},
                          Tuple{MessageKind::control, 1234, 99999, 7}}) {
        EXPECT_EQ(Tuple::unpack(t.pack()), t);
        EXPECT_NE(t.pack(), 0u) << "a filled ICB slot must never read as empty";
    }
}

TEST(MatchSpec, WildcardsAndContexts) {
    const Tuple t{MessageKind::eager, 5, 3, 42};
    EXPECT_TRUE((MatchSpec{5, 3, 42}.matches(t)));
    EXPECT_TRUE((MatchSpec{5, MatchSpec::kAnySource, 42}.matches(t)));
    EXPECT_TRUE((MatchSpec{5, 3, MatchSpec::kAnyTag}.matches(t)));
    EXPECT_TRUE((MatchSpec{5, MatchSpec::kAnySource, MatchSpec::kAnyTag}.matches(t)));
    EXPECT_FALSE((MatchSpec{6, MatchSpec::kAnySource, MatchSpec::kAnyTag}.matches(t)))
        << "wildcards never cross communicators";
    EXPECT_FALSE((MatchSpec{5, 2, 42}.matches(t)));
    EXPECT_FALSE((MatchSpec{5, 3, 41}.matches(t)));
}

// An interrupt request must be asked for by exactly the RTS tuples the
// receive would match: the helper's decision equals the engine's.
TEST(InterruptPattern, AgreesWithMatchSpecOnRtsTuples) {
    const std::int32_t sources[] = {0, 3, kMaxRank, MatchSpec::kAnySource};
    const std::int32_t tags[] = {0, 42, kMaxTag, MatchSpec::kAnyTag};
    const Tuple arrivals[] = {{MessageKind::rts, 5, 3, 42},   {MessageKind::rts, 5, 0, 0},
                              {MessageKind::rts, 6, 3, 42},   {MessageKind::rts, 5, kMaxRank, kMaxTag},
                              {MessageKind::rts, 5, 3, 43}};
    for (std::int32_t source : sources)
        for (std::int32_t tag : tags) {
            const MatchSpec spec{5, source, tag};
            const InterruptPattern pattern = interrupt_pattern(spec);
            EXPECT_NE(pattern.value, 0u) << "a posted request must never read as a free entry";
            for (const Tuple& t : arrivals)
                EXPECT_EQ(pattern.asked_by(t.pack()), spec.matches(t))
                    << "source " << source << " tag " << tag << " arrival " << t.source << "/"
                    << t.tag << " context " << t.context;
        }
}

TEST(InterruptPattern, OnlyRtsTuplesAskForHelp) {
    const InterruptPattern any = interrupt_pattern(MatchSpec{5, MatchSpec::kAnySource, MatchSpec::kAnyTag});
    EXPECT_TRUE(any.asked_by(Tuple{MessageKind::rts, 5, 1, 1}.pack()));
    EXPECT_FALSE(any.asked_by(Tuple{MessageKind::eager, 5, 1, 1}.pack()))
        << "eager data is already there; waking for it is futile";
    EXPECT_FALSE(any.asked_by(Tuple{MessageKind::control, 5, 1, 1}.pack()));
    EXPECT_FALSE(any.asked_by(0)) << "an empty ICB slot";
}

}  // namespace
}  // namespace si::p2p
