/*
 * Every call that blocks follows the wait policy: poll for SI_WAIT_SPIN_US,
 * then sleep until a message rings. Rank 0 computes kBlockedSeconds before
 * each message; rank 1 waits for it blocked in one call after another
 * (MPI_Recv, MPI_Wait, MPI_Probe, MPI_Waitany, MPI_Waitsome, MPI_Mprobe) and
 * measures the CPU time its thread spent in each. Also ranks 2, 3... in pairs.
 *
 *   blocked_cpu sleeps   every call sleeps: its thread uses a small fraction
 *                        of the wall time (a polling one uses about all of it)
 *   blocked_cpu polls    no call sleeps (the wait_sleeps counter stays 0; CPU
 *                        time would depend on the machine's load)
 *   blocked_cpu auto     SI_WAIT_SPIN_US=auto with SI_PROGRESS=none on one
 *                        host: sleeps when the ranks outnumber the CPUs they
 *                        were started on, polls otherwise
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

enum { kCalls = 6 };
static const double kBlockedSeconds = 0.15;
/* Far above what a sleeping call uses (well under 1 %), far below a
 * spinning one even on a loaded machine. */
static const double kMaxCpuShare = 0.3;
static const char* const kNames[kCalls] = {"MPI_Recv",    "MPI_Wait",     "MPI_Probe",
                                           "MPI_Waitany", "MPI_Waitsome", "MPI_Mprobe"};

static double thread_cpu(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static void receive_in(int call, int peer, int* value) {
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Message message;
    int index, count, indices[2];
    switch (call) {
        case 0: MPI_Recv(value, 1, MPI_INT, peer, call, MPI_COMM_WORLD, MPI_STATUS_IGNORE); break;
        case 1:
            MPI_Irecv(value, 1, MPI_INT, peer, call, MPI_COMM_WORLD, &requests[0]);
            MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
            break;
        case 2:
            MPI_Probe(peer, call, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(value, 1, MPI_INT, peer, call, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break;
        case 3:
            MPI_Irecv(value, 1, MPI_INT, peer, call, MPI_COMM_WORLD, &requests[1]);
            MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
            break;
        case 4:
            MPI_Irecv(value, 1, MPI_INT, peer, call, MPI_COMM_WORLD, &requests[0]);
            MPI_Waitsome(2, requests, &count, indices, MPI_STATUSES_IGNORE);
            break;
        default:
            MPI_Mprobe(peer, call, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
            MPI_Mrecv(value, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
            break;
    }
}

static int g_expect_sleeps = 1;

static int check_no_sleep(int nranks, const int* notes) {
    (void)notes;
    int errs = 0;
    for (int r = 1; r < nranks; r += 2) {
        const long long sleeps = stats_counter(r, "wait_sleeps");
        errs += MT_CHECK(sleeps == 0, "rank %d slept %lld times in MPI: expected it to poll", r,
                         sleeps);
    }
    return errs;
}

int main(int argc, char** argv) {
    const char* expect = argc > 1 ? argv[1] : "sleeps";
    cpu_set_t launched_on;
    CPU_ZERO(&launched_on);
    sched_getaffinity(0, sizeof launched_on, &launched_on);
    stats_enable();
    mtest_init(&argc, &argv);
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(expect, "auto") == 0)
        g_expect_sleeps = size > CPU_COUNT(&launched_on);
    else if (strcmp(expect, "polls") == 0)
        g_expect_sleeps = 0;
    else if (strcmp(expect, "sleeps") != 0)
        errs += MT_CHECK(0, "unknown expectation '%s' (sleeps, polls or auto)", expect);
    if (rank == 0) printf("expecting blocked calls to %s\n", g_expect_sleeps ? "sleep" : "poll");
    const int paired = rank < size - (size % 2);
    const int peer = rank ^ 1;
    for (int call = 0; call < kCalls; ++call) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (!paired) continue;
        if (rank % 2 == 0) {
            work_until(kBlockedSeconds, NULL, NULL);
            MPI_Send(&call, 1, MPI_INT, peer, call, MPI_COMM_WORLD);
            continue;
        }
        int value = -1;
        const double wall_start = work_now(), cpu_start = thread_cpu();
        receive_in(call, peer, &value);
        const double wall = work_now() - wall_start, cpu = thread_cpu() - cpu_start;
        errs += MT_EQ(value, call);
        if (g_expect_sleeps)
            errs += MT_CHECK(cpu <= kMaxCpuShare * wall,
                             "%s blocked %.0f ms and used %.0f ms of CPU: it does not sleep",
                             kNames[call], 1e3 * wall, 1e3 * cpu);
        printf("rank %d: %-12s blocked %5.1f ms, CPU %5.2f ms\n", rank, kNames[call], 1e3 * wall,
               1e3 * cpu);
    }
    return stats_finish(errs, 0, g_expect_sleeps ? NULL : check_no_sleep);
}
