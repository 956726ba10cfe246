/*
 * Helper-process lifecycle and faults under SI_PROGRESS=smart; driven and
 * checked by lifecycle.sh.
 *
 *   lifecycle kill-rank <pid file>   rank 0 writes its helpers' pids to the
 *                                    file, then the last rank SIGKILLs itself;
 *                                    the others compute until the launcher
 *                                    ends the job
 *   lifecycle kill-helper            rank 0 kills its helpers; the ranks must
 *                                    go on communicating (rendezvous too)
 *   lifecycle finalize               MPI_Finalize right after a nonblocking
 *                                    receive left the interrupt thread asleep
 *   lifecycle kill-sender            the last rank SIGKILLs itself right after
 *                                    starting a rendezvous send that rank 0
 *                                    receives: rank 0's read of its memory
 *                                    fails, and the launcher ends the job
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mtest.h"
#include "work.h"

enum { kMaxHelpers = 64, kLarge = 1 << 20, kHuge = 64 << 20 };

/* Children of this process (its helpers), from /proc/self/task/<tid>/children. */
static int helper_pids(int* pids) {
    int count = 0;
    DIR* tasks = opendir("/proc/self/task");
    if (tasks == NULL) return 0;
    struct dirent* task;
    while ((task = readdir(tasks)) != NULL && count < kMaxHelpers) {
        if (task->d_name[0] == '.') continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", task->d_name);
        FILE* file = fopen(path, "r");
        if (file == NULL) continue;
        while (count < kMaxHelpers && fscanf(file, "%d", &pids[count]) == 1) ++count;
        fclose(file);
    }
    closedir(tasks);
    return count;
}

/* Waits until a killed process has exited (a zombie, or gone): a helper at
 * SCHED_IDLE on a loaded machine may take seconds to get the CPU it needs to
 * die, and until then the ranks rightly see it alive. 1 if it did in time. */
static int await_exit(int pid, double seconds) {
    const double start = work_now();
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    while (work_now() - start < seconds) {
        FILE* file = fopen(path, "r");
        if (file == NULL) return 1;
        char state = '?';
        const int read = fscanf(file, "%*d (%*[^)]) %c", &state);
        fclose(file);
        if (read == 1 && (state == 'Z' || state == 'X')) return 1;
        usleep(1000);
    }
    return 0;
}

static int exchange_large(int rank, int size) {
    int errs = 0;
    unsigned char* buffer = malloc(kLarge);
    if (buffer == NULL) MT_FATAL("out of memory");
    const int peer = rank ^ 1;
    if (peer < size) {
        if (rank % 2 == 0) {
            mtest_fill(buffer, kLarge, 9);
            MPI_Send(buffer, kLarge, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        } else {
            MPI_Request request;
            MPI_Irecv(buffer, kLarge, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &request);
            work_until(0.05, NULL, NULL);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            errs += MT_VERIFY("after the helper died", buffer, kLarge, 9);
        }
    }
    free(buffer);
    return errs;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr,
                "usage: lifecycle kill-rank <pid file> | kill-helper | finalize | kill-sender\n");
        return 2;
    }
    mtest_init(&argc, &argv);
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int pids[kMaxHelpers];

    if (strcmp(argv[1], "kill-rank") == 0 && argc > 2) {
        if (rank == 0) {
            const int count = helper_pids(pids);
            FILE* file = fopen(argv[2], "w");
            for (int i = 0; file != NULL && i < count; ++i) fprintf(file, "%d\n", pids[i]);
            if (file != NULL) fclose(file);
            if (count == 0) MT_FATAL("rank 0 has no helper process");
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1) raise(SIGKILL);
        work_until(60.0, NULL, NULL);
        MT_FATAL("the job was not ended after a rank was killed");
    } else if (strcmp(argv[1], "kill-helper") == 0) {
        if (rank == 0) {
            const int count = helper_pids(pids);
            errs += MT_CHECK(count > 0, "rank 0 has no helper process");
            for (int i = 0; i < count; ++i) kill(pids[i], SIGKILL);
            for (int i = 0; i < count; ++i)
                errs += MT_CHECK(await_exit(pids[i], 30.0), "helper %d did not exit", pids[i]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        work_until(1.5, NULL, NULL);  // interrupt threads notice within a second
        for (int round = 0; round < 3; ++round) errs += exchange_large(rank, size);
    } else if (strcmp(argv[1], "finalize") == 0) {
        MPI_Request request;
        int value = rank;
        const int peer = (rank + 1) % size;
        MPI_Irecv(&value, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &request);
        MPI_Send(&rank, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        errs += MT_EQ(value, (rank + size - 1) % size);
        work_until(0.1, NULL, NULL);  // the interrupt thread is asleep by now
        const double start = work_now();
        const int status = mtest_finish(errs);
        if (rank == 0) printf("MPI_Finalize took %.3f s\n", work_now() - start);
        return status;
    } else if (strcmp(argv[1], "kill-sender") == 0) {
        char* buffer = calloc(kHuge, 1);
        if (buffer == NULL) MT_FATAL("out of memory");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1) {
            MPI_Request request;
            MPI_Isend(buffer, kHuge, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &request);
            raise(SIGKILL);
        } else if (rank == 0) {
            // Either the receive fails (the sender's memory is gone) or the
            // launcher ends the job first; it must not hang.
            const int code =
                MPI_Recv(buffer, kHuge, MPI_BYTE, size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("rank 0: the receive from the killed sender returned %s\n",
                   code == MPI_SUCCESS ? "MPI_SUCCESS" : "an error");
            fflush(stdout);
        }
        work_until(60.0, NULL, NULL);
        MT_FATAL("the job was not ended after a sender was killed mid-transfer");
    } else {
        MT_FATAL("unknown scenario %s", argv[1]);
    }
    return mtest_finish(errs);
}
