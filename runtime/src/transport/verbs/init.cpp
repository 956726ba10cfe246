#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <random>

#include "base/error.hpp"
#include "base/log.hpp"
#include "transport/verbs/verbs_transport.hpp"

namespace si::transport::verbs {

namespace {

// RDMA operations a queue pair may have in its send queue besides messages.
constexpr int kRdmaDepth = 16;
// Local ACK timeout 4.096 us * 2^16 = 268 ms, 7 retries: a peer that died is
// reported after about two seconds, while a slow one (an emulated guest whose
// kernel answers late) is not taken for dead.
constexpr std::uint8_t kAckTimeout = 16;
constexpr std::uint8_t kRetryCount = 7;

std::size_t round_up(std::size_t n, std::size_t to) {
    return (n + to - 1) / to * to;
}

bool ipv4_mapped(const ibv_gid& gid) {
    static constexpr std::uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return std::memcmp(gid.raw, prefix, sizeof prefix) == 0;
}

bool all_zero(const ibv_gid& gid) {
    return std::all_of(std::begin(gid.raw), std::end(gid.raw),
                       [](std::uint8_t b) { return b == 0; });
}

std::string gid_hex(const ibv_gid& gid) {
    std::string text;
    for (std::uint8_t b : gid.raw) text += fmt::format("{:02x}", b);
    return text;
}

// "a:b:c" -> fields; the values we exchange are hex numbers and hex strings.
std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t colon; (colon = text.find(':', start)) != std::string::npos; start = colon + 1)
        fields.push_back(text.substr(start, colon - start));
    fields.push_back(text.substr(start));
    return fields;
}

std::uint64_t hex_number(const std::string& text, const std::string& key) {
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (ec != std::errc{} || end != text.data() + text.size())
        fail("verbs: bad connection data under bootstrap key {}: '{}'", key, text);
    return value;
}

std::uint64_t memlock_limit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    return limit.rlim_cur;
}

std::string memlock_hint(int err) {
    if (err != ENOMEM && err != EPERM && err != EAGAIN) return {};
    const std::uint64_t limit = memlock_limit();
    if (limit == UINT64_MAX) return {};
    return fmt::format(
        " The locked-memory limit (ulimit -l) is {} KiB; raise it (`ulimit -l "
        "unlimited`, `memlock` in /etc/security/limits.conf, LimitMEMLOCK= for "
        "systemd units).",
        limit / 1024);
}

}  // namespace

bool can_lock_any_memory() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (!line.starts_with("CapEff:")) continue;
        const std::uint64_t caps = std::strtoull(line.c_str() + 7, nullptr, 16);
        return (caps >> 14 & 1) != 0;
    }
    return false;
}

// ---- device ------------------------------------------------------------------

bool device_available() {
    int count = 0;
    ibv_device** list = ::ibv_get_device_list(&count);
    if (list == nullptr) return false;
    bool active = false;
    for (int d = 0; d < count && !active; ++d) {
        ibv_context* context = ::ibv_open_device(list[d]);
        if (context == nullptr) continue;
        ibv_device_attr attr{};
        if (::ibv_query_device(context, &attr) != 0) attr.phys_port_cnt = 0;
        for (std::uint8_t port = 1; port <= attr.phys_port_cnt && !active; ++port) {
            ibv_port_attr port_attr{};
            active = ::ibv_query_port(context, port, &port_attr) == 0 &&
                     port_attr.state == IBV_PORT_ACTIVE;
        }
        ::ibv_close_device(context);
    }
    ::ibv_free_device_list(list);
    return active;
}

Device open_device(const std::string& why) {
    int count = 0;
    ibv_device** list = ::ibv_get_device_list(&count);
    const int list_errno = errno;
    if (list == nullptr || count == 0) {
        if (list != nullptr) ::ibv_free_device_list(list);
        fail(
            "no RDMA device found: {} needs an InfiniBand or RoCE device, and libibverbs sees "
            "none{} (/sys/class/infiniband lists the kernel's). Load the driver of the adapter, "
            "or for Soft-RoCE `modprobe rdma_rxe; rdma link add rxe0 type rxe netdev <interface>`; "
            "or run every rank on one node (SI_TRANSPORT=shm, SI_NODE_SIZE unset).",
            why,
            list == nullptr && list_errno == ENOSYS
                ? std::string(" (the kernel offers no RDMA: ib_uverbs is not loaded)")
            : list == nullptr ? fmt::format(" ({})", std::strerror(list_errno))
                              : std::string());
    }
    Device device;
    std::string seen;
    for (int d = 0; d < count && device.context == nullptr; ++d) {
        const char* name = ::ibv_get_device_name(list[d]);
        ibv_context* context = ::ibv_open_device(list[d]);
        if (context == nullptr) {
            seen += fmt::format(
                "; {} cannot be opened ({}: is /dev/infiniband/uverbs* "
                "accessible?)",
                name, std::strerror(errno));
            continue;
        }
        ibv_device_attr attr{};
        if (::ibv_query_device(context, &attr) != 0) attr.phys_port_cnt = 0;
        for (std::uint8_t port = 1; port <= attr.phys_port_cnt; ++port) {
            ibv_port_attr port_attr{};
            if (::ibv_query_port(context, port, &port_attr) != 0) continue;
            if (port_attr.state != IBV_PORT_ACTIVE) {
                seen += fmt::format("; {} port {} is {}", name, port,
                                    ::ibv_port_state_str(port_attr.state));
                continue;
            }
            device = Device{context, name, port, port_attr, attr, false, -1, {}};
            break;
        }
        if (device.context == nullptr) ::ibv_close_device(context);
    }
    ::ibv_free_device_list(list);
    if (device.context == nullptr)
        fail(
            "no ACTIVE RDMA port{}. {} needs a port whose link is up: check `ibv_devinfo` and "
            "`rdma link show`; under Soft-RoCE the network interface must be up.",
            seen.empty() ? std::string(": the devices have no ports") : ":" + seen.substr(1), why);

    device.ethernet = device.port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
    if (!device.ethernet) {
        if (device.port_attr.lid == 0)
            fail("RDMA device {} port {} has no LID: is a subnet manager (opensm) running?",
                 device.name, device.port);
        return device;
    }
    // RoCE: prefer RoCE v2 over IPv4 (routable UDP, what Soft-RoCE speaks
    // best), then any RoCE v2, then RoCE v1.
    int best_rank = 0;
    for (int index = 0; index < device.port_attr.gid_tbl_len; ++index) {
        ibv_gid_entry entry{};
        if (::ibv_query_gid_ex(device.context, device.port, index, &entry, 0) != 0) continue;
        if (all_zero(entry.gid)) continue;
        int rank = 0;
        if (entry.gid_type == IBV_GID_TYPE_ROCE_V2)
            rank = ipv4_mapped(entry.gid) ? 3 : 2;
        else if (entry.gid_type == IBV_GID_TYPE_ROCE_V1)
            rank = 1;
        if (rank > best_rank) {
            best_rank = rank;
            device.gid_index = index;
            device.gid = entry.gid;
            device.gid_kind = rank;
        }
    }
    if (device.gid_index < 0) {
        close_device(device);
        fail(
            "RDMA device {} port {} is RoCE but has no usable GID: give its network interface an "
            "IP address (`ip addr add <address> dev <interface>`).",
            device.name, device.port);
    }
    return device;
}

namespace {

std::string port_words(bool ethernet, int gid_kind, int gid_index, const std::string& device) {
    static constexpr const char* kKinds[] = {"?", "RoCE v1", "RoCE v2 (IPv6)", "RoCE v2 (IPv4)"};
    if (!ethernet) return fmt::format("an InfiniBand port of {}", device);
    return fmt::format("a {} GID (index {} of {})", kKinds[gid_kind >= 0 && gid_kind <= 3 ? gid_kind : 0],
                       gid_index, device);
}

}  // namespace

std::optional<std::string> address_mismatch(const Device& mine, bool their_ethernet,
                                            int their_gid_kind, int their_gid_index,
                                            const std::string& their_device, int peer) {
    if (mine.ethernet == their_ethernet && (!mine.ethernet || mine.gid_kind == their_gid_kind))
        return std::nullopt;
    return fmt::format(
        "rank {} is addressed by {}, this rank by {}: the two cannot reach each other. {}", peer,
        port_words(their_ethernet, their_gid_kind, their_gid_index, their_device),
        port_words(mine.ethernet, mine.gid_kind, mine.gid_index, mine.name),
        mine.ethernet != their_ethernet
            ? "Run the job on one fabric (InfiniBand or RoCE) on every node."
            : "Give every node's RoCE interface the same kind of address (an IPv4 address gives a "
              "RoCE v2 IPv4 GID, which the runtime prefers), or check `show_gids` / `ibv_devinfo "
              "-v` on both.");
}

void close_device(Device& device) {
    if (device.context != nullptr) ::ibv_close_device(device.context);
    device.context = nullptr;
}

std::uint64_t pinned_bytes(const Options& options, std::size_t peers) {
    const std::size_t slots = peers * static_cast<std::size_t>(options.credits);
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t receive_slot = round_up(std::max<std::size_t>(options.max_body, 1), 64);
    const std::size_t bounce_slot = VerbsTransport::kBounceHeaderBytes + receive_slot;
    return round_up(slots * receive_slot, page) + round_up(slots * bounce_slot, page) +
           round_up(slots * VerbsTransport::kTupleBytes, page) + page;
}

std::optional<std::string> memlock_problem(std::uint64_t limit, std::uint64_t needed,
                                           bool can_lock_any) {
    if (can_lock_any || limit >= needed) return std::nullopt;
    return fmt::format(
        "the locked-memory limit (RLIMIT_MEMLOCK, `ulimit -l`) is {} KiB, but the "
        "verbs transport must pin {} KiB for its receive and send buffers. Raise it "
        "before starting the job: `ulimit -l unlimited` in the launching shell, "
        "`* - memlock unlimited` in /etc/security/limits.conf, LimitMEMLOCK=infinity "
        "for systemd services, PropagateResourceLimits under Slurm; or lower "
        "SI_VERBS_CREDITS or SI_EAGER_LIMIT.",
        limit / 1024, (needed + 1023) / 1024);
}

// ---- set-up --------------------------------------------------------------------

VerbsTransport::VerbsTransport(bootstrap::Bootstrap& bootstrap, std::vector<int> peers,
                               std::atomic<std::uint64_t>* icb,
                               std::atomic<std::uint32_t>& doorbell, const Options& options)
    : options_(options),
      icb_(icb),
      doorbell_(doorbell),
      // A NIC cannot ring a futex; the notifier thread rings it for the NIC.
      doorbell_backend_(wake::make_backend(config::WakeBackend::futex)) {
    capabilities_ = Capabilities{.name = "verbs",
                                 .max_body_bytes = options.max_body,
                                 .rdma_read = true,
                                 .rdma_write = true,
                                 .signal_safe = true,
                                 .pins_memory = true};
    try {
        set_up(bootstrap, std::move(peers));
    } catch (...) {
        tear_down();
        throw;
    }
}

ibv_mr* VerbsTransport::register_or_fail(void* address, std::size_t bytes, int access,
                                         const char* what) {
    ibv_mr* mr = ::ibv_reg_mr(pd_, address, bytes, access);
    if (mr == nullptr) {
        const int err = errno;
        fail("verbs: cannot register the {} ({} KiB) with {}: {}.{}", what, bytes / 1024,
             device_.name, std::strerror(err), memlock_hint(err));
    }
    return mr;
}

void VerbsTransport::set_up(bootstrap::Bootstrap& bootstrap, std::vector<int> peers) {
    // SmartInterrupts forks its helpers after this registers memory. Before
    // Linux 5.13 (RHEL 8's 4.18, say) the parent's next write to a pinned
    // page would then copy it away from the NIC (copy-on-write), and sends
    // and receives would use the child's page; ibv_fork_init marks every
    // registration MADV_DONTFORK. Later kernels copy pinned pages at fork
    // (IBV_FORK_UNNEEDED). It must come before the first registration.
    if (::ibv_is_fork_initialized() == IBV_FORK_DISABLED) {
        if (int err = ::ibv_fork_init())
            fail("verbs: ibv_fork_init failed ({}): helpers forked after memory registration "
                 "would corrupt this rank's RDMA buffers on this kernel; set RDMAV_FORK_SAFE=1",
                 std::strerror(err));
    }
    device_ = open_device(options_.why);
    const int credits = options_.credits;
    const std::size_t n = peers.size();
    receive_slot_bytes_ = round_up(std::max<std::size_t>(options_.max_body, 1), 64);
    bounce_slot_bytes_ = kBounceHeaderBytes + receive_slot_bytes_;
    if (auto problem =
            memlock_problem(memlock_limit(), pinned_bytes(options_, n), can_lock_any_memory()))
        fail("verbs: {}", *problem);
    const std::size_t slots = n * static_cast<std::size_t>(credits);
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t receive_bytes = round_up(slots * receive_slot_bytes_, page);
    const std::size_t bounce_bytes = round_up(slots * bounce_slot_bytes_, page);
    const std::size_t icb_bytes = slots * kTupleBytes;

    const ibv_device_attr& attr = device_.device_attr;
    sq_depth_ = std::min(2 * credits + kRdmaDepth, attr.max_qp_wr);
    if (credits > attr.max_qp_wr || credits + 2 > sq_depth_)
        fail("SI_VERBS_CREDITS={} is more than {} accepts per queue pair ({}); lower it", credits,
             device_.name, attr.max_qp_wr);
    rd_atomic_ = std::max(1, std::min({16, attr.max_qp_rd_atom, attr.max_qp_init_rd_atom}));
    // At least 2, so that the one receive a credit message takes never
    // triggers a credit message back by itself (no ping-pong); at most
    // credits - 1 (credits >= 4), so that a sender left with only its
    // reserved credit always gets a credit message (see the header).
    credit_threshold_ = std::max(2, credits / 2);
    if (credits < 4) fail("verbs: SI_VERBS_CREDITS must be at least 4 (it is {})", credits);
    max_chunk_ = std::min<std::size_t>(device_.port_attr.max_msg_sz, std::size_t{1} << 30);
    const long cq_depth = static_cast<long>(n) * (credits + sq_depth_);
    if (cq_depth > attr.max_cqe)
        fail(
            "verbs: {} peers x (SI_VERBS_CREDITS={} + {}) completions exceed the {} entries a "
            "completion queue of {} may hold; lower SI_VERBS_CREDITS",
            n, credits, sq_depth_, attr.max_cqe, device_.name);

    pd_ = ::ibv_alloc_pd(device_.context);
    if (pd_ == nullptr) fail("verbs: {}", errno_message("ibv_alloc_pd", errno));
    channel_ = ::ibv_create_comp_channel(device_.context);
    if (channel_ == nullptr) fail("verbs: {}", errno_message("ibv_create_comp_channel", errno));
    // The notifier drains events until EAGAIN, never blocking inside libibverbs.
    ::fcntl(channel_->fd, F_SETFL, ::fcntl(channel_->fd, F_GETFL) | O_NONBLOCK);
    cq_ = ::ibv_create_cq(device_.context, static_cast<int>(std::max(cq_depth, 1L)), nullptr,
                          channel_, 0);
    if (cq_ == nullptr) fail("verbs: {}", errno_message("ibv_create_cq", errno));

    for (Pages* pages : {&receive_pages_, &bounce_pages_}) {
        const std::size_t bytes = pages == &receive_pages_ ? receive_bytes : bounce_bytes;
        void* data = ::mmap(nullptr, std::max(bytes, page), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (data == MAP_FAILED) fail("verbs: {}", errno_message("mmap", errno));
        *pages = Pages{static_cast<std::byte*>(data), std::max(bytes, page)};
    }
    receive_mr_ = register_or_fail(receive_pages_.data, receive_pages_.bytes,
                                   IBV_ACCESS_LOCAL_WRITE, "receive buffers");
    bounce_mr_ = register_or_fail(bounce_pages_.data, bounce_pages_.bytes, 0, "send buffers");
    if (icb_bytes > 0)
        icb_mr_ = register_or_fail(icb_, icb_bytes, IBV_ACCESS_LOCAL_WRITE,
                                   "interrupt control buffer (ICB) in the node region");
    cache_ = std::make_unique<RegistrationCache>(
        page, [this](std::uintptr_t begin, std::size_t bytes) { return pin(begin, bytes); },
        [this](const PinnedRange& range) { unpin(range); });

    std::random_device entropy;
    index_of_.assign(static_cast<std::size_t>(bootstrap.size()), -1);
    peers_.resize(n);
    // Room a pass in a signal handler may use without allocating: each peer
    // is listed at most once in either.
    credit_due_.reserve(n);
    failed_to_report_.reserve(n);
    reserve_ops(kRdmaDepth);
    for (std::size_t i = 0; i < n; ++i) {
        Peer& peer = peers_[i];
        peer.rank = peers[i];
        index_of_[static_cast<std::size_t>(peer.rank)] = static_cast<int>(i);
        ibv_qp_init_attr init{};
        init.send_cq = cq_;
        init.recv_cq = cq_;
        init.qp_type = IBV_QPT_RC;
        init.cap.max_send_wr = static_cast<std::uint32_t>(sq_depth_);
        init.cap.max_recv_wr = static_cast<std::uint32_t>(credits);
        init.cap.max_send_sge = 2;
        init.cap.max_recv_sge = 2;
        peer.qp = ::ibv_create_qp(pd_, &init);
        if (peer.qp == nullptr)
            fail("verbs: cannot create a queue pair for rank {}: {}", peer.rank,
                 std::strerror(errno));
        ibv_qp_attr to_init{};
        to_init.qp_state = IBV_QPS_INIT;
        to_init.pkey_index = 0;
        to_init.port_num = device_.port;
        to_init.qp_access_flags =
            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
        if (int err = ::ibv_modify_qp(
                peer.qp, &to_init,
                IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
            fail("verbs: queue pair for rank {} refuses state INIT: {}", peer.rank,
                 std::strerror(err));
        // Receives go up before the peer can connect, so its first message
        // finds one (a queue pair in INIT accepts receives).
        for (int slot = 0; slot < credits; ++slot)
            post_receive(static_cast<int>(i), static_cast<std::uint32_t>(slot));
        if (peer.failed) fail("verbs: cannot post receives for rank {}", peer.rank);
        peer.psn = entropy() & 0xffffff;
        bootstrap.put(fmt::format("verbs-{}-{}", bootstrap.rank(), peer.rank),
                      fmt::format("{:x}:{:x}", peer.qp->qp_num, peer.psn));
    }
    bootstrap.put(fmt::format("verbs-{}", bootstrap.rank()),
                  fmt::format("{:x}:{:x}:{}:{:x}:{:x}:{:x}:{}", device_.port_attr.lid,
                              static_cast<int>(device_.port_attr.active_mtu), gid_hex(device_.gid),
                              device_.ethernet ? 1 : 0, device_.gid_kind,
                              std::max(device_.gid_index, 0), device_.name));
}

void VerbsTransport::connect(bootstrap::Bootstrap& bootstrap) {
    for (Peer& peer : peers_) {
        const std::string address_key = fmt::format("verbs-{}", peer.rank);
        const std::vector<std::string> address = split(bootstrap.get(address_key));
        const std::string qp_key = fmt::format("verbs-{}-{}", peer.rank, bootstrap.rank());
        const std::vector<std::string> qp = split(bootstrap.get(qp_key));
        if (address.size() != 7 || address[2].size() != 32 || qp.size() != 2)
            fail("verbs: bad connection data from rank {} (a different runtime version?)",
                 peer.rank);
        if (auto problem = address_mismatch(
                device_, hex_number(address[3], address_key) != 0,
                static_cast<int>(hex_number(address[4], address_key)),
                static_cast<int>(hex_number(address[5], address_key)), address[6], peer.rank))
            fail("verbs: {}", *problem);
        const std::uint64_t their_mtu = hex_number(address[1], address_key);
        if (their_mtu != static_cast<std::uint64_t>(device_.port_attr.active_mtu) && !mtu_named_) {
            mtu_named_ = true;
            log::warn("verbs: rank {}'s port ({}) has an active MTU of {} bytes, this rank's ({}) "
                      "{}: connections between them use the smaller; set the same MTU on every "
                      "node for the full packet size",
                      peer.rank, address[6], 128 << their_mtu, device_.name,
                      128 << static_cast<int>(device_.port_attr.active_mtu));
        }

        ibv_qp_attr rtr{};
        rtr.qp_state = IBV_QPS_RTR;
        rtr.path_mtu = static_cast<ibv_mtu>(std::min<std::uint64_t>(
            device_.port_attr.active_mtu, hex_number(address[1], address_key)));
        rtr.dest_qp_num = static_cast<std::uint32_t>(hex_number(qp[0], qp_key));
        rtr.rq_psn = static_cast<std::uint32_t>(hex_number(qp[1], qp_key));
        rtr.max_dest_rd_atomic = static_cast<std::uint8_t>(rd_atomic_);
        rtr.min_rnr_timer = 12;
        rtr.ah_attr.port_num = device_.port;
        if (device_.ethernet) {
            rtr.ah_attr.is_global = 1;
            for (std::size_t b = 0; b < 16; ++b)
                rtr.ah_attr.grh.dgid.raw[b] =
                    static_cast<std::uint8_t>(hex_number(address[2].substr(2 * b, 2), address_key));
            rtr.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(device_.gid_index);
            rtr.ah_attr.grh.hop_limit = 64;
        } else {
            rtr.ah_attr.dlid = static_cast<std::uint16_t>(hex_number(address[0], address_key));
        }
        if (int err = ::ibv_modify_qp(peer.qp, &rtr,
                                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                          IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                                          IBV_QP_MIN_RNR_TIMER))
            fail("verbs: cannot connect to rank {} (state RTR): {}", peer.rank, std::strerror(err));

        ibv_qp_attr rts{};
        rts.qp_state = IBV_QPS_RTS;
        rts.timeout = kAckTimeout;
        rts.retry_cnt = kRetryCount;
        rts.rnr_retry = 0;
        rts.sq_psn = peer.psn;
        rts.max_rd_atomic = static_cast<std::uint8_t>(rd_atomic_);
        if (int err =
                ::ibv_modify_qp(peer.qp, &rts,
                                IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
            fail("verbs: cannot connect to rank {} (state RTS): {}", peer.rank, std::strerror(err));
        peer.credits = options_.credits;
    }
}

// ---- tear-down -------------------------------------------------------------------

VerbsTransport::~VerbsTransport() {
    drain_sends();
    tear_down();
}

void VerbsTransport::tear_down() {
    if (notifier_.joinable()) {
        const std::uint64_t one = 1;
        if (::write(stop_fd_, &one, sizeof one) < 0) log::warn("verbs: cannot stop the notifier");
        notifier_.join();
    }
    if (stop_fd_ >= 0) ::close(stop_fd_);
    for (Peer& peer : peers_)
        if (peer.qp != nullptr) ::ibv_destroy_qp(peer.qp);
    peers_.clear();
    cache_.reset();
    for (ibv_mr* mr : {icb_mr_, receive_mr_, bounce_mr_})
        if (mr != nullptr) ::ibv_dereg_mr(mr);
    icb_mr_ = receive_mr_ = bounce_mr_ = nullptr;
    for (Pages* pages : {&receive_pages_, &bounce_pages_})
        if (pages->data != nullptr) ::munmap(pages->data, pages->bytes);
    if (cq_ != nullptr) ::ibv_destroy_cq(cq_);
    if (channel_ != nullptr) ::ibv_destroy_comp_channel(channel_);
    if (pd_ != nullptr) ::ibv_dealloc_pd(pd_);
    cq_ = nullptr;
    channel_ = nullptr;
    pd_ = nullptr;
    close_device(device_);
}

}  // namespace si::transport::verbs
