#include "abi/convert.hpp"

#include <gtest/gtest.h>
#include <mpi.h>  // the runtime's values

#include "standard_values.hpp"

namespace si::abi {
namespace {

namespace std_ = standard;

void* standard_handle(int value) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(value)); }

TEST(AbiConvertTest, PredefinedHandlesMapBothWays) {
    const std::pair<int, int> pairs[] = {
        {std_::mpi_comm_world, MPI_COMM_WORLD}, {std_::mpi_comm_null, MPI_COMM_NULL},
        {std_::mpi_int, MPI_INT},               {std_::mpi_double_int, MPI_DOUBLE_INT},
        {std_::mpi_sum, MPI_SUM},               {std_::mpi_request_null, MPI_REQUEST_NULL},
        {std_::mpi_info_env, MPI_INFO_ENV},     {std_::mpi_errors_return, MPI_ERRORS_RETURN},
        {std_::mpi_group_empty, MPI_GROUP_EMPTY}, {std_::mpi_win_null, MPI_WIN_NULL},
    };
    for (const auto& [standard, native] : pairs) {
        EXPECT_EQ(native_handle(standard_handle(standard)), native) << standard;
        EXPECT_EQ(abi_handle(native), standard_handle(standard)) << standard;
    }
}

TEST(AbiConvertTest, TheRuntimesNullMessageIsItsNullRequestYetConvertsByKind) {
    ASSERT_EQ(MPI_MESSAGE_NULL, MPI_REQUEST_NULL);
    EXPECT_EQ(to_abi<MPI_ABI_Message*>(MPI_MESSAGE_NULL),
              static_cast<MPI_ABI_Message*>(standard_handle(std_::mpi_message_null)));
    EXPECT_EQ(to_abi<MPI_ABI_Request*>(MPI_REQUEST_NULL),
              static_cast<MPI_ABI_Request*>(standard_handle(std_::mpi_request_null)));
}

TEST(AbiConvertTest, HandlesTheRuntimeCreatedAreCastBothWays) {
    const int created = static_cast<int>(0xc4000007u);  // a communicator made at run time
    void* handle = abi_handle(created);
    EXPECT_GE(reinterpret_cast<std::uintptr_t>(handle), 0x400u) << "clear of the standard's";
    EXPECT_EQ(native_handle(handle), created);
}

TEST(AbiConvertTest, AnUnusedStandardValueIsNoHandle) {
    EXPECT_EQ(native_handle(standard_handle(0)), 0);
    EXPECT_EQ(native_handle(standard_handle(0x3ff)), 0);
}

TEST(AbiConvertTest, RankAndTagSentinels) {
    EXPECT_EQ(rank_in(std_::mpi_any_source), MPI_ANY_SOURCE);
    EXPECT_EQ(rank_in(std_::mpi_proc_null), MPI_PROC_NULL);
    EXPECT_EQ(rank_in(std_::mpi_root), MPI_ROOT);
    EXPECT_EQ(rank_in(5), 5);
    for (int rank : {MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT, 0, 7}) EXPECT_EQ(rank_in(rank_out(rank)), rank);
    EXPECT_EQ(tag_in(std_::mpi_any_tag), MPI_ANY_TAG);
    EXPECT_EQ(tag_out(MPI_ANY_TAG), std_::mpi_any_tag);
    EXPECT_EQ(tag_in(12), 12);
}

TEST(AbiConvertTest, ErrorCodesKeepTheirClassAndTheirMessage) {
    EXPECT_EQ(error_out(MPI_SUCCESS), std_::mpi_success);
    EXPECT_EQ(error_out(MPI_ERR_TRUNCATE), std_::mpi_err_truncate);
    EXPECT_EQ(error_in(std_::mpi_err_rank), MPI_ERR_RANK);
    // A code with a message: the runtime's class + 128 * (slot + 1).
    const int with_message = MPI_ERR_ROOT + 128 * 5;
    const int out = error_out(with_message);
    EXPECT_LE(out, std_::mpi_err_lastcode);
    EXPECT_EQ(out % 64, std_::mpi_err_root);
    EXPECT_EQ(error_in(out), with_message);
    // What a program added lies above MPI_ERR_LASTCODE on both sides.
    EXPECT_EQ(error_out(MPI_ERR_LASTCODE + 1), std_::mpi_err_lastcode + 1);
    EXPECT_EQ(error_in(std_::mpi_err_lastcode + 3), MPI_ERR_LASTCODE + 3);
    // A class the runtime does not have is an unknown one.
    EXPECT_EQ(error_in(std_::mpi_err_abi), MPI_ERR_UNKNOWN);
}

TEST(AbiConvertTest, ConstantsByGroup) {
    EXPECT_EQ(constant_in(Constants::thread_level, std_::mpi_thread_multiple), MPI_THREAD_MULTIPLE);
    EXPECT_EQ(constant_out(Constants::thread_level, MPI_THREAD_FUNNELED), std_::mpi_thread_funneled);
    EXPECT_EQ(constant_out(Constants::comparison, MPI_IDENT), std_::mpi_ident);
    EXPECT_EQ(constant_out(Constants::topology, MPI_CART), std_::mpi_cart);
    EXPECT_EQ(constant_in(Constants::lock_type, std_::mpi_lock_shared), MPI_LOCK_SHARED);
    EXPECT_EQ(constant_out(Constants::combiner, MPI_COMBINER_HVECTOR_INTEGER),
              std_::mpi_combiner_hvector);
    EXPECT_EQ(constant_in(Constants::keyval, std_::mpi_tag_ub), MPI_TAG_UB);
    EXPECT_EQ(constant_out(Constants::keyval, MPI_KEYVAL_INVALID), std_::mpi_keyval_invalid);
    EXPECT_EQ(constant_in(Constants::keyval, 0x24000123), 0x24000123) << "a program's key";
    EXPECT_EQ(darg_in(std_::mpi_distribute_dflt_darg), MPI_DISTRIBUTE_DFLT_DARG);
    EXPECT_EQ(darg_in(std_::mpi_distribute_block), std_::mpi_distribute_block) << "a size";
    EXPECT_EQ(assert_in(std_::mpi_mode_nostore | std_::mpi_mode_noprecede),
              MPI_MODE_NOSTORE | MPI_MODE_NOPRECEDE);
}

TEST(AbiConvertTest, StatusRoundTrip) {
    NativeStatus native{100, 2, MPI_PROC_NULL, MPI_ANY_TAG, MPI_ERR_TRUNCATE};
    Status status{};
    status_out(native, &status);
    EXPECT_EQ(status.source, std_::mpi_proc_null);
    EXPECT_EQ(status.tag, std_::mpi_any_tag);
    EXPECT_EQ(status.error, std_::mpi_err_truncate);
    NativeStatus back{};
    status_in(&status, &back);
    EXPECT_EQ(back.count_lo, 100);
    EXPECT_EQ(back.count_hi_and_cancelled, 2);
    EXPECT_EQ(back.source, MPI_PROC_NULL);
    EXPECT_EQ(back.tag, MPI_ANY_TAG);
    EXPECT_EQ(back.error, MPI_ERR_TRUNCATE);
}

TEST(AbiConvertTest, FieldsTheRuntimeLeftAloneStayAsTheProgramHadThem) {
    Status status{7, 8, 9, {1, 2, 3, 4, 5}};
    status_out(unwritten(), &status);
    EXPECT_EQ(status.source, 7);
    EXPECT_EQ(status.error, 9);
    EXPECT_EQ(status.internal[0], 1);
    // A completed send: the byte count and the cancelled bit, nothing else.
    NativeStatus send = unwritten();
    send.count_lo = 4;
    send.count_hi_and_cancelled = 0;
    status_out(send, &status);
    EXPECT_EQ(status.source, 7);
    EXPECT_EQ(status.tag, 8);
    EXPECT_EQ(status.error, 9);
    EXPECT_EQ(status.internal[0], 4);
    EXPECT_EQ(status.internal[1], 0);
}

TEST(AbiConvertTest, PointerSentinels) {
    EXPECT_EQ(native_buffer(reinterpret_cast<void*>(1)), MPI_IN_PLACE);
    EXPECT_EQ(native_buffer(nullptr), MPI_BOTTOM);
    EXPECT_EQ(native_weights(reinterpret_cast<int*>(10)), MPI_UNWEIGHTED);
    EXPECT_EQ(native_weights(reinterpret_cast<int*>(11)), MPI_WEIGHTS_EMPTY);
}

}  // namespace
}  // namespace si::abi
