/*
 * The environment calls: MPI_Initialized / MPI_Finalized before, during and
 * after the MPI lifetime (both may be called at any time), MPI_Get_version
 * (also allowed before MPI_Init) against the header's MPI_VERSION,
 * MPI_Get_library_version, MPI_Get_processor_name, MPI_Wtime / MPI_Wtick,
 * the attributes every MPI_COMM_WORLD carries (MPI_TAG_UB at least 32767,
 * MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL), MPI_Query_thread,
 * MPI_Is_thread_main and MPI_Pcontrol.
 *
 * The post-MPI_Finalize checks can only be reported by each rank itself;
 * rank 0 prints "No Errors" only if its own also passed.
 */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static int check_string(const char* what, const char* text, int length, int max) {
    return MT_CHECK(length > 0 && length < max && strlen(text) == (size_t)length,
                    "%s: \"%s\" with length %d (limit %d)", what, text, length, max);
}

static int check_attribute(int keyval, const char* name, int* value) {
    int* attr = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &attr, &flag);
    if (!flag || attr == NULL) return MT_CHECK(0, "MPI_COMM_WORLD has no %s attribute", name);
    *value = *attr;
    return 0;
}

int main(int argc, char** argv) {
    int errs = 0, flag = -1, version = -1, subversion = -1;

    /* Before MPI_Init. */
    MPI_Initialized(&flag);
    errs += MT_CHECK(flag == 0, "MPI_Initialized before MPI_Init: %d", flag);
    MPI_Finalized(&flag);
    errs += MT_CHECK(flag == 0, "MPI_Finalized before MPI_Init: %d", flag);
    /* The library answers with its own version, which is mpi.h's unless a
     * program built against MPICH runs on this runtime (the MPICH ABI). */
#ifdef SI_MPI
    const int header_is_the_library = 1;
#else
    const int header_is_the_library = !mtest_on_simpi();
#endif
    MPI_Get_version(&version, &subversion);
    errs += MT_CHECK(!header_is_the_library ||
                         (version == MPI_VERSION && subversion == MPI_SUBVERSION),
                     "MPI_Get_version before MPI_Init: %d.%d, header says %d.%d", version,
                     subversion, MPI_VERSION, MPI_SUBVERSION);

    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Initialized(&flag);
    errs += MT_EQ(flag, 1);
    MPI_Finalized(&flag);
    errs += MT_EQ(flag, 0);
    int again = -1, sub_again = -1;
    MPI_Get_version(&again, &sub_again);
    errs += MT_EQ(again, version);
    errs += MT_EQ(sub_again, subversion);

    char text[MPI_MAX_LIBRARY_VERSION_STRING + MPI_MAX_PROCESSOR_NAME];
    int length = -1;
    MPI_Get_library_version(text, &length);
    errs += check_string("MPI_Get_library_version", text, length, MPI_MAX_LIBRARY_VERSION_STRING);
    length = -1;
    MPI_Get_processor_name(text, &length);
    errs += check_string("MPI_Get_processor_name", text, length, MPI_MAX_PROCESSOR_NAME);

    /* Wtime: never goes back, advances across a sleep by about that much. */
    const double tick = MPI_Wtick();
    errs += MT_CHECK(tick > 0 && tick <= 1e-3, "MPI_Wtick is %g s", tick);
    double previous = MPI_Wtime();
    for (int i = 0; i < 100000; ++i) {
        double now = MPI_Wtime();
        if (now < previous) {
            errs += MT_CHECK(0, "MPI_Wtime went back from %.9f to %.9f", previous, now);
            break;
        }
        previous = now;
    }
    const double before = MPI_Wtime();
    mtest_sleep_ms(50);
    const double slept = MPI_Wtime() - before;
    errs += MT_CHECK(slept >= 0.045 && slept < 5.0, "50 ms of sleep measured as %.6f s", slept);

    /* Attributes of MPI_COMM_WORLD (MPI 3.1, section 8.1.2). */
    int value = 0;
    if (!check_attribute(MPI_TAG_UB, "MPI_TAG_UB", &value))
        errs += MT_CHECK(value >= 32767, "MPI_TAG_UB is %d", value);
    if (!check_attribute(MPI_HOST, "MPI_HOST", &value))
        errs += MT_CHECK(value == MPI_PROC_NULL || (value >= 0 && value < size), "MPI_HOST is %d",
                         value);
    if (!check_attribute(MPI_IO, "MPI_IO", &value))
        errs += MT_CHECK(
            value == MPI_ANY_SOURCE || value == MPI_PROC_NULL || (value >= 0 && value < size),
            "MPI_IO is %d", value);
    if (!check_attribute(MPI_WTIME_IS_GLOBAL, "MPI_WTIME_IS_GLOBAL", &value))
        errs += MT_CHECK(value == 0 || value == 1, "MPI_WTIME_IS_GLOBAL is %d", value);

    /* Threads: plain MPI_Init may give any level; this is the main thread. */
    int provided = -1;
    MPI_Query_thread(&provided);
    errs += MT_CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
                     "MPI_Query_thread gave %d", provided);
    flag = 0;
    MPI_Is_thread_main(&flag);
    errs += MT_CHECK(flag, "MPI_Is_thread_main is false in the thread that called MPI_Init");

    errs += MT_EQ(MPI_Pcontrol(0), MPI_SUCCESS);
    errs += MT_EQ(MPI_Pcontrol(1), MPI_SUCCESS);

    /* mtest_finish, by hand: the last checks happen after MPI_Finalize. */
    int total = 0;
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    int after = 0;
    MPI_Finalized(&flag);
    after += MT_CHECK(flag == 1, "MPI_Finalized after MPI_Finalize: %d", flag);
    MPI_Initialized(&flag);
    after += MT_CHECK(flag == 1, "MPI_Initialized after MPI_Finalize: %d (it stays true)", flag);
    if (rank == 0) {
        if (total + after == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", total + after);
    }
    return total + after + errs != 0;
}
