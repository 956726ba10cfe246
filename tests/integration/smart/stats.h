/*
 * Reading this runtime's counters from a test: the counters are written by
 * MPI_Finalize when SI_STATS names a path (one CSV per rank, "<path>.<rank>",
 * rows "rank,counter,value"), so checks on them run after MPI_Finalize, on
 * rank 0, which reads every rank's file.
 */
#ifndef SMART_STATS_H
#define SMART_STATS_H

/* Before MPI_Init: points SI_STATS at a path named after the rank's parent
 * process (sirun or Hydra's proxy); stats_finish gathers every rank's. */
void stats_enable(void);

/* The value of a counter of a rank, waiting up to 10 s for its file (one
 * this job wrote, not an older job's under a reused pid); -1 if the file or
 * the counter does not exist. */
long long stats_counter(int rank, const char* name);

/* Sum of every counter of a rank whose name starts with `prefix` and ends
 * with `suffix` (e.g. "helper", "_wakes"). */
long long stats_sum(int rank, const char* prefix, const char* suffix);

/* The same over ranks 0 .. nranks - 1: the counters of ghosts are on the
 * rank that started them, the first of each ghost domain. */
long long stats_sum_all(int nranks, const char* prefix, const char* suffix);

/* SI_PROGRESS=ghost: how many ranks one set of ghosts serves. Simulated nodes
 * (SI_NODE_SIZE) have ghosts of their own when they talk verbs, which the
 * tests ask for with SI_TRANSPORT=verbs; otherwise the host's ghosts serve
 * the whole job. */
int ghost_domain_size(int nranks);

/* Reduces the error count to rank 0 and gathers every rank's `note` there,
 * finalizes, and on rank 0 adds what `check` finds in the counters of all
 * `nranks` ranks (NULL: nothing), prints "No Errors" or "Found N errors", and
 * removes the files. With MTEST_REMOTE_STATS set (ranks on other nodes, whose
 * files rank 0 cannot see) it neither checks nor removes them: the caller
 * does, on each node. Returns the exit status for main. */
int stats_finish(int errors, int note, int (*check)(int nranks, const int* notes));

#endif
