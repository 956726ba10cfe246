#!/usr/bin/env python3
"""Fault injection: kills a random rank, helper or ghost of a job running
random traffic (traffic.c) at a random moment, trial after trial, and checks
what the runtime promises (README, "Faults"):

- a rank killed (SIGKILL, SIGSEGV, SIGTERM) ends the job within --limit
  seconds, with a non-zero status and a message that names its pid;
- a helper killed alone does not end the job: the ranks finish their
  traffic, every payload checked ("No Errors", status 0);
- a ghost killed alone (SI_PROGRESS=ghost) fails the operations handed to
  it, which ends the job within a second more than --limit, unless the
  ranks needed it no more and finish with every payload checked;
- afterwards no shared-memory object of the job and no helper or ghost
  process remains.

  fault_inject.py --sirun build/bin/sirun --program build/bin/stress_traffic
                  [--trials 200] [--seed N] [--limit 2.0]
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import time

from processes import alive, children, name_of

MODES = [("none", {}), ("thread", {}), ("interrupt", {}), ("pef", {}),
         ("smart", {"SI_HELPERS": "1"}), ("smart", {"SI_HELPERS": "2"}),
         ("ghost", {"SI_GHOSTS": "1"}), ("ghost", {"SI_GHOSTS": "2"})]
# The processes a node's first rank forks, and the victim kind each is.
NODE_PROCESSES = {"si-helper": "helper", "si-ghost": "ghost"}
SIGNALS = [signal.SIGKILL, signal.SIGSEGV, signal.SIGTERM]


def shm_objects(sirun_pid):
    """The job's shared-memory objects (named after its sirun's pid)."""
    prefix = f"si-sirun-{sirun_pid}-"
    return {name for name in os.listdir("/dev/shm") if name.startswith(prefix)}


def trial(args, rng, number):
    mode, extra = rng.choice(MODES)
    ranks = rng.choice([2, 3, 4])
    served_by = {"smart": ["helper"], "ghost": ["ghost"]}.get(mode, [])
    victim_kind = rng.choice(["rank"] * 3 + served_by)
    sig = signal.SIGKILL if victim_kind == "helper" else rng.choice(SIGNALS)
    delay = rng.uniform(*args.after)
    env = dict(os.environ, SI_PROGRESS=mode, **extra)
    job = subprocess.Popen([args.sirun, "--timeout", "60", "-n", str(ranks), args.program,
                            str(args.seconds)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    time.sleep(delay)
    rank_pids = [p for p in children(job.pid) if name_of(p) not in NODE_PROCESSES]
    helper_pids = [h for r in rank_pids for h in children(r) if name_of(h) in NODE_PROCESSES]
    pool = rank_pids if victim_kind == "rank" else [
        h for h in helper_pids if NODE_PROCESSES.get(name_of(h)) == victim_kind]
    problems = []
    if not pool:
        job.kill()
        job.communicate()
        return None  # the job ended (or had not started) before the fault: no trial
    victim = rng.choice(pool)
    killed_at = time.monotonic()
    try:
        os.kill(victim, sig)
    except ProcessLookupError:
        pass
    try:
        output, _ = job.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        output, _ = job.communicate()
        problems.append("the job did not end within 60 s")
    teardown = time.monotonic() - killed_at
    if victim_kind == "rank":
        if job.returncode == 0:
            problems.append("status 0 after a rank was killed")
        if f"pid {victim}" not in output:
            problems.append(f"no message names the killed rank (pid {victim})")
        if teardown > args.limit:
            problems.append(f"the job took {teardown:.2f} s to end")
    elif victim_kind == "ghost":
        # The operations handed to it fail, and under MPI_ERRORS_ARE_FATAL
        # that ends the job; a job that needed it no more may finish.
        if job.returncode == 0 and "No Errors" not in output:
            problems.append("status 0 without \"No Errors\" after a ghost was killed")
        if teardown > args.limit + 1:
            problems.append(f"the job took {teardown:.2f} s to end after its ghost died")
    elif job.returncode != 0 or "No Errors" not in output:
        problems.append(f"status {job.returncode} after a helper was killed alone")
    # What must be gone: give dying helpers (SCHED_IDLE) a moment.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(alive(h) for h in helper_pids):
        time.sleep(0.05)
    left_helpers = [h for h in helper_pids if alive(h)]
    if left_helpers:
        problems.append(f"helpers or ghosts still running: {left_helpers}")
    left_shm = shm_objects(job.pid)
    if left_shm:
        problems.append(f"shared memory left: {sorted(left_shm)}")
        for name in left_shm:
            os.unlink(f"/dev/shm/{name}")
    label = " ".join(f"{k}={v}" for k, v in extra.items())
    print(f"trial {number:3}: {mode:9} {label:12} np{ranks} {victim_kind:6} "
          f"{signal.Signals(sig).name:7} after {delay * 1000:3.0f} ms: "
          f"status {job.returncode:4}, ended {teardown:5.2f} s after the fault"
          + ("" if not problems else "  FAIL: " + "; ".join(problems)), flush=True)
    if problems:
        print("  output: " + output.strip().replace("\n", "\n          ")[-2000:])
    return teardown, victim_kind, not problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sirun", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="seconds of traffic a job runs if nothing kills it")
    parser.add_argument("--after", type=float, nargs=2, default=(0.05, 0.6),
                        metavar=("MIN", "MAX"),
                        help="seconds after the start the fault comes, drawn between the two "
                             "(an emulated machine needs longer to get past MPI_Init)")
    parser.add_argument("--limit", type=float, default=2.0,
                        help="seconds a job may take to end after a rank died")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"seed {seed} (rerun the same trials with --seed {seed})")
    rng = random.Random(seed)
    results = []
    while len(results) < args.trials:
        outcome = trial(args, rng, len(results) + 1)
        if outcome is not None:
            results.append(outcome)
    failed = [r for r in results if not r[2]]
    ranks = [r[0] for r in results if r[1] == "rank"]
    print(f"{len(results)} trials ({len(ranks)} ranks killed, {len(results) - len(ranks)} "
          f"helpers or ghosts), {len(failed)} failed; slowest teardown after a rank died "
          f"{max(ranks, default=0):.2f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
