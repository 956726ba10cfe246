// sibench doctor: what si_probe's TOML becomes (fine, worth knowing, blocking),
// with and without --need, and the report's form.
#include "doctor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "test_files.hpp"

namespace si::harness {
namespace {

using Status = DoctorCheck::Status;

// A node with one Soft-RoCE port up, as si_probe prints it.
constexpr const char* kActive = R"toml(
[machine]
cores = 2
pus = 2
numa_nodes = 1
smt = false

[placement]
ranks = 2
helpers = 1
rank_cpus = [[0], [1]]
helper_cpus = [[]]

[memlock]
limit_kib = 8192
can_lock_any = false
per_peer_kib = 1026
peers_allowed = 7
needed_kib = 64660
peers = 63

[rdma]
devices = 1
chosen = "rxe0 port 1 GID index 1"

[[port]]
device = "rxe0"
port = 1
state = "active"
active = true
link_layer = "Ethernet"
active_mtu = 1024
lid = 0
gids = ["0 RoCE v2 fe80000000000000b4a1fffffe2b1c3d", "1 RoCE v2 00000000000000000000ffff0a4d0001"]

[wake]
device = "/dev/si_wake"
module = true
)toml";

// No device, a small memlock limit, no module.
constexpr const char* kBare = R"toml(
[machine]
cores = 2
pus = 2
numa_nodes = 1
smt = false
[placement]
ranks = 2
helpers = 1
rank_cpus = [[0], [1]]
helper_cpus = [[]]
[memlock]
limit_kib = 64
can_lock_any = false
per_peer_kib = 1026
peers_allowed = 0
needed_kib = 64660
peers = 63
[rdma]
devices = 0
problem = "no RDMA device found: a job over verbs needs an InfiniBand or RoCE device"
[wake]
device = "/dev/si_wake"
module = false
problem = "cannot open /dev/si_wake (No such file or directory)"
)toml";

DoctorOptions needing(bool verbs, bool kmod) {
    DoctorOptions options;
    options.need_verbs = verbs;
    options.need_kmod = kmod;
    return options;
}

std::vector<DoctorCheck> checks(const std::string& toml, const DoctorOptions& options = {}) {
    test::ScratchDir dir;
    std::ofstream(dir.file("probe.toml")) << toml;
    return checks_from_probe(dir.file("probe.toml"), options);
}

const DoctorCheck& find(const std::vector<DoctorCheck>& all, const std::string& name) {
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const DoctorCheck& c) { return c.name == name; });
    if (it == all.end()) throw std::runtime_error("no check " + name);
    return *it;
}

TEST(SibenchDoctor, ANodeWithAnActivePortPasses) {
    const auto all = checks(kActive, needing(true, true));
    EXPECT_EQ(doctor_exit_code(all), 0) << format_doctor(all);
    EXPECT_EQ(find(all, "RDMA").status, Status::ok);
    EXPECT_NE(find(all, "RDMA").detail.find("rxe0 port 1 GID index 1"), std::string::npos);
    const auto& port = find(all, "rxe0 port 1");
    EXPECT_NE(port.detail.find("MTU 1024"), std::string::npos) << port.detail;
    EXPECT_NE(port.detail.find("1 RoCE v2 00000000000000000000ffff0a4d0001"), std::string::npos);
    // Two ranks on two cores leave no core for a helper: worth knowing, not blocking.
    EXPECT_EQ(find(all, "placement").status, Status::note);
    // 8 MiB lets a rank reach 7 peers over verbs: worth a warning, not blocking.
    EXPECT_EQ(find(all, "locked memory").status, Status::warn);
    EXPECT_NE(find(all, "locked memory").fix.find("more than 7 ranks"), std::string::npos);
    EXPECT_EQ(find(all, "si_wake module").status, Status::ok);
}

TEST(SibenchDoctor, WhatBlocksDependsOnWhatTheRunNeeds) {
    // A laptop without RDMA runs single-node jobs: nothing blocks.
    const auto laptop = checks(kBare);
    EXPECT_EQ(doctor_exit_code(laptop), 0) << format_doctor(laptop);
    EXPECT_EQ(find(laptop, "RDMA").status, Status::note);
    EXPECT_EQ(find(laptop, "locked memory").status, Status::note);
    // Across nodes: no device and the limit block, each with what to do.
    const auto cluster = checks(kBare, needing(true, true));
    EXPECT_EQ(doctor_exit_code(cluster), 1);
    EXPECT_EQ(find(cluster, "RDMA").status, Status::fail);
    EXPECT_NE(find(cluster, "RDMA").fix.find("no RDMA device found"), std::string::npos);
    EXPECT_EQ(find(cluster, "locked memory").status, Status::fail);
    EXPECT_NE(find(cluster, "locked memory").fix.find("no job over verbs"), std::string::npos);
    EXPECT_NE(find(cluster, "locked memory").fix.find("ulimit -l"), std::string::npos);
    EXPECT_EQ(find(cluster, "si_wake module").status, Status::fail);
    const std::string text = format_doctor(cluster);
    EXPECT_NE(text.find("FAIL  locked memory"), std::string::npos) << text;
    EXPECT_NE(text.find("-> "), std::string::npos) << text;
    EXPECT_NE(text.find("3 problem(s) block a run"), std::string::npos) << text;
}

TEST(SibenchDoctor, APortDownIsNamedAndAMemlockLimitBlocksWhereADeviceIs) {
    std::string down = kActive;
    const auto swap = [&](const std::string& from, const std::string& to) {
        down.replace(down.find(from), from.size(), to);
    };
    swap("state = \"active\"\nactive = true", "state = \"down\"\nactive = false");
    swap("chosen = \"rxe0 port 1 GID index 1\"",
         "problem = \"no ACTIVE RDMA port: rxe0 port 1 is down\"");
    swap("peers_allowed = 7", "peers_allowed = 0");
    const auto all = checks(down);
    EXPECT_EQ(find(all, "RDMA").status, Status::note);  // not needed: worth knowing
    EXPECT_NE(find(all, "RDMA").fix.find("is down"), std::string::npos);
    EXPECT_EQ(find(all, "rxe0 port 1").status, Status::note);
    EXPECT_NE(find(all, "rxe0 port 1").fix.find("link up"), std::string::npos);
    // A device is there, so its jobs would pin memory: the limit blocks.
    EXPECT_EQ(find(all, "locked memory").status, Status::fail);
}

TEST(SibenchDoctor, UnreadableProbeOutputIsAFailure) {
    const auto all = checks("[machine\ncores = ");
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].name, "si_probe");
    EXPECT_EQ(doctor_exit_code(all), 1);
}

}  // namespace
}  // namespace si::harness
