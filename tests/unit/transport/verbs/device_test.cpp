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

}  // namespace
}  // namespace si::transport::verbs
