// What the verbs transport says when it cannot run: no RDMA device (this
// container), or a locked-memory limit too low for what it pins.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/error.hpp"
#include "transport/verbs/verbs_transport.hpp"

namespace si::transport::verbs {
namespace {

bool host_has_rdma_device() {
    std::error_code ec;
    return std::filesystem::exists("/sys/class/infiniband", ec) &&
           !std::filesystem::is_empty("/sys/class/infiniband", ec);
}

TEST(VerbsDevice, NoDeviceSaysWhatIsMissingAndWhatToDo) {
    if (host_has_rdma_device()) GTEST_SKIP() << "this host has an RDMA device";
    try {
        Device device = open_device("SI_TRANSPORT=verbs");
        close_device(device);
        FAIL() << "open_device succeeded without a device";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("no RDMA device found"), std::string::npos) << message;
        EXPECT_NE(message.find("SI_TRANSPORT=verbs"), std::string::npos) << message;
        EXPECT_NE(message.find("rdma link add"), std::string::npos) << message;
        EXPECT_NE(message.find("SI_TRANSPORT=shm"), std::string::npos) << message;
    }
}

TEST(VerbsDevice, MemlockLimitTooLowNamesTheLimitAndTheFix) {
    const auto problem = memlock_problem(64 * 1024, 3 * 1024 * 1024, false);
    ASSERT_TRUE(problem.has_value());
    EXPECT_NE(problem->find("ulimit -l"), std::string::npos) << *problem;
    EXPECT_NE(problem->find("64 KiB"), std::string::npos) << *problem;
    EXPECT_NE(problem->find("3072 KiB"), std::string::npos) << *problem;
    EXPECT_NE(problem->find("limits.conf"), std::string::npos) << *problem;
}

TEST(VerbsDevice, MemlockLimitHighEnoughOrPrivileged) {
    EXPECT_FALSE(memlock_problem(8 << 20, 3 << 20, false).has_value());
    EXPECT_FALSE(memlock_problem(64 * 1024, 3 << 20, true).has_value());  // CAP_IPC_LOCK
}

TEST(VerbsDevice, AnAddressOfAnotherKindIsNamedWithBothSides) {
    Device mine;
    mine.name = "mlx5_1";
    mine.ethernet = true;
    mine.gid_kind = 3;  // RoCE v2 over IPv4
    mine.gid_index = 3;
    EXPECT_FALSE(address_mismatch(mine, true, 3, 1, "rxe0", 1).has_value());  // index may differ
    const auto v1 = address_mismatch(mine, true, 1, 0, "mlx5_0", 7);
    ASSERT_TRUE(v1.has_value());
    EXPECT_NE(v1->find("rank 7 is addressed by a RoCE v1 GID (index 0 of mlx5_0)"),
              std::string::npos)
        << *v1;
    EXPECT_NE(v1->find("this rank by a RoCE v2 (IPv4) GID (index 3 of mlx5_1)"), std::string::npos)
        << *v1;
    EXPECT_NE(v1->find("IPv4 address"), std::string::npos) << *v1;
    const auto fabric = address_mismatch(mine, false, 0, 0, "mlx5_2", 2);
    ASSERT_TRUE(fabric.has_value());
    EXPECT_NE(fabric->find("an InfiniBand port of mlx5_2"), std::string::npos) << *fabric;
    EXPECT_NE(fabric->find("one fabric"), std::string::npos) << *fabric;
    Device ib;
    ib.name = "mlx5_0";
    EXPECT_FALSE(address_mismatch(ib, false, 0, 0, "mlx5_0", 1).has_value());
}

}  // namespace
}  // namespace si::transport::verbs
