#include "progress/ghost_layout.hpp"

#include <algorithm>
#include <bit>
#include <map>

namespace si::progress {

GhostLayout::GhostLayout(std::vector<int> domain_of, const std::vector<int>& host_of, int ghosts)
    : domain_of_(std::move(domain_of)) {
    // Domains numbered by their first rank, whatever numbers the caller used.
    std::map<int, int> number;
    for (int& domain : domain_of_) {
        const auto [it, added] = number.emplace(domain, static_cast<int>(number.size()));
        domain = it->second;
        if (added) domain_size_.push_back(0);
        index_in_domain_.push_back(domain_size_[static_cast<std::size_t>(domain)]++);
    }
    std::vector<int> host_of_domain(domain_size_.size(), 0);
    for (std::size_t rank = 0; rank < domain_of_.size(); ++rank)
        host_of_domain[static_cast<std::size_t>(domain_of_[rank])] = host_of[rank];
    first_ghost_.push_back(0);
    for (std::size_t domain = 0; domain < domain_size_.size(); ++domain) {
        const int count = std::min(std::max(ghosts, 1), domain_size_[domain]);
        const int host = host_of_domain[domain];
        if (static_cast<int>(blocks_on_.size()) <= host)
            blocks_on_.resize(static_cast<std::size_t>(host) + 1, 0);
        for (int g = 0; g < count; ++g)
            block_of_.push_back(blocks_on_[static_cast<std::size_t>(host)]++);
        first_ghost_.push_back(first_ghost_.back() + count);
    }
}

int GhostLayout::ghosts_in(int domain) const {
    const auto d = static_cast<std::size_t>(domain);
    return first_ghost_[d + 1] - first_ghost_[d];
}

int GhostLayout::domain_of_ghost(int ghost) const {
    const auto after = std::upper_bound(first_ghost_.begin(), first_ghost_.end(), ghost);
    return static_cast<int>(after - first_ghost_.begin()) - 1;
}

int GhostLayout::blocks_on(int host) const {
    return host < static_cast<int>(blocks_on_.size()) ? blocks_on_[static_cast<std::size_t>(host)]
                                                      : 0;
}

int GhostLayout::serving_ghost(int rank) const {
    const int domain = domain_of(rank);
    return first_ghost(domain) +
           index_in_domain_[static_cast<std::size_t>(rank)] % ghosts_in(domain);
}

int GhostLayout::carrying_ghost(int from, int to) const {
    const int domain = domain_of(from);
    if (domain == domain_of(to)) return serving_ghost(to);
    return first_ghost(domain) + serving_ghost(to) % ghosts_in(domain);
}

int GhostLayout::offset(int rank) const {
    return index_in_domain_[static_cast<std::size_t>(rank)] / ghosts_in(domain_of(rank));
}

int GhostLayout::offset_bits() const {
    int most_served = 1;
    for (int domain = 0; domain < domains(); ++domain) {
        const int ghosts = ghosts_in(domain);
        most_served = std::max(
            most_served, (domain_size_[static_cast<std::size_t>(domain)] + ghosts - 1) / ghosts);
    }
    return static_cast<int>(std::bit_width(static_cast<unsigned>(most_served - 1)));
}

}  // namespace si::progress
