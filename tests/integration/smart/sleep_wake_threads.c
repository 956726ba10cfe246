/*
 * Several threads of one rank blocked in MPI at once must each be woken by
 * their message. Rank 1 runs kThreads threads, thread t receiving tag t from
 * rank 0 and answering it; rank 0 sends the round's message to one thread at
 * a time, after computing a little so that rank 1's threads sleep (run with
 * SI_WAIT_SPIN_US=0): one holds the progress lock asleep on the doorbell,
 * the others wait for the lock. A message for a thread that waits for the
 * lock must wake the holder, which completes it and hands the lock over. A
 * lost wake-up shows as a 200 ms sleep that ends finding work
 * (lost_wakeups), so the test requires from every rank's counters:
 *   wait_sleeps > 0 on rank 1   it slept (the test reached the path),
 *   lost_wakeups = 0            every message during a sleep ended it.
 * Ranks beyond 2 pair up the same way (2 with 3, ...). Run with another
 * SI_WAIT_SPIN_US (auto: the threads poll), the test checks the hand-over of
 * the lock between threads that poll: no lost wake-up, no sleep requirement.
 *
 *   sleep_wake_threads [rounds]     (default 300)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

enum { kThreads = 3 };
static const double kComputeSeconds = 20e-6;

struct Thread {
    int peer, tag, rounds, errs;
};

static void* answer(void* arg) {
    struct Thread* me = arg;
    for (int round = 0; round < me->rounds; ++round) {
        int value = -1;
        MPI_Recv(&value, 1, MPI_INT, me->peer, me->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        me->errs += MT_EQ(value, round * kThreads + me->tag);
        MPI_Send(&value, 1, MPI_INT, me->peer, me->tag, MPI_COMM_WORLD);
    }
    return NULL;
}

static int sleep_at_once;  // SI_WAIT_SPIN_US=0: rank 1's threads must sleep

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    int errs = 0;
    for (int r = 0; r < nranks - (nranks % 2); ++r) {
        const long long sleeps = stats_counter(r, "wait_sleeps");
        const long long lost = stats_counter(r, "lost_wakeups");
        if (r % 2 == 1 && sleep_at_once)
            errs += MT_CHECK(sleeps > 0, "rank %d never slept in a blocked call", r);
        errs += MT_CHECK(lost == 0, "rank %d: %lld lost wake-ups in %lld sleeps", r, lost, sleeps);
        printf("rank %d: %lld sleeps, %lld outlasted a peer off its core for 200 ms\n", r, sleeps,
               stats_counter(r, "wait_timeouts"));
    }
    return errs;
}

int main(int argc, char** argv) {
    stats_enable();
    setenv("SI_WAIT_SPIN_US", "0", 0);
    sleep_at_once = strcmp(getenv("SI_WAIT_SPIN_US"), "0") == 0;
    int provided = 0;
    mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    const int rounds = argc > 1 ? atoi(argv[1]) : 300;
    int errs = MT_CHECK(provided == MPI_THREAD_MULTIPLE, "provided thread level %d", provided);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int paired = rank < size - (size % 2);
    const int peer = rank ^ 1;
    if (paired && rank % 2 == 1) {
        struct Thread threads[kThreads];
        pthread_t ids[kThreads];
        for (int t = 0; t < kThreads; ++t) {
            threads[t] = (struct Thread){peer, t, rounds, 0};
            pthread_create(&ids[t], NULL, answer, &threads[t]);
        }
        for (int t = 0; t < kThreads; ++t) {
            pthread_join(ids[t], NULL);
            errs += threads[t].errs;
        }
    } else if (paired) {
        for (int round = 0; round < rounds; ++round)
            for (int t = 0; t < kThreads; ++t) {
                work_until(kComputeSeconds, NULL, NULL);
                int value = round * kThreads + t, back = -1;
                MPI_Send(&value, 1, MPI_INT, peer, t, MPI_COMM_WORLD);
                MPI_Recv(&back, 1, MPI_INT, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                errs += MT_EQ(back, value);
            }
    }
    return stats_finish(errs, 0, check_counters);
}
