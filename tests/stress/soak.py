#!/usr/bin/env python3
"""Soak: random traffic (traffic.c, every payload checked, counters checked at
the end) for a long time in SmartInterrupts with 1 and 2 helpers, while the
resident memory of every process of the job (ranks and helpers) is sampled:
after a warm-up it must stay flat. Prints each process's RSS slope.

  soak.py --sirun build/bin/sirun --program build/bin/stress_traffic
          [--seconds 600] [--ranks 4] [--max-slope 256]
"""
import argparse
import os
import subprocess
import sys
import time

from processes import descendants, name_of, rss_kib

CONFIGS = [("smart", {"SI_HELPERS": "1"}), ("smart", {"SI_HELPERS": "2"})]


def slope_per_minute(samples):
    """Least-squares slope of (seconds, KiB) samples, in KiB per minute."""
    n = len(samples)
    if n < 3:
        return 0.0
    mt = sum(t for t, _ in samples) / n
    mv = sum(v for _, v in samples) / n
    var = sum((t - mt) ** 2 for t, _ in samples)
    if var == 0:
        return 0.0
    return 60 * sum((t - mt) * (v - mv) for t, v in samples) / var


def soak(args, mode, extra):
    # The tests' watchdog (mtest.c) ends a rank after 90 s unless told otherwise.
    env = dict(os.environ, SI_PROGRESS=mode, MTEST_TIMEOUT=str(int(args.seconds + 120)), **extra)
    command = [args.sirun, "--timeout", str(int(args.seconds * 2 + 60)), "-n", str(args.ranks),
               args.program, str(args.seconds), "counters"]
    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                           text=True)
    start = time.monotonic()
    samples = {}
    next_report = start + 60
    while job.poll() is None:
        now = time.monotonic() - start
        for pid in descendants(job.pid):
            kib = rss_kib(pid)
            if kib is not None:
                samples.setdefault((pid, name_of(pid)), []).append((now, kib))
        if time.monotonic() > next_report:
            print(f"  {now:.0f} s of {args.seconds:.0f} s", flush=True)
            next_report += 60
        time.sleep(0.5)
    output = job.stdout.read()
    label = " ".join(f"{k}={v}" for k, v in extra.items())
    ok = job.returncode == 0 and "No Errors" in output
    warm = args.seconds * args.warmup
    worst = 0.0
    print(f"{mode} {label}: status {job.returncode}, "
          + ("traffic checked" if ok else "FAILED"))
    for line in output.splitlines():
        if line.startswith("wake-ups:"):
            print("  " + line)
    for (pid, name), series in sorted(samples.items()):
        steady = [(t, v) for t, v in series if t >= warm]
        slope = slope_per_minute(steady)
        worst = max(worst, slope)
        if steady:
            print(f"  {name:12} pid {pid:7}: RSS {steady[0][1]:7} -> {steady[-1][1]:7} KiB "
                  f"after warm-up, slope {slope:+8.1f} KiB/min over {len(steady)} samples")
    if not ok:
        print("  output: " + output.strip()[-2000:])
    if worst > args.max_slope:
        print(f"  FAIL: resident memory grows {worst:.1f} KiB/min (limit {args.max_slope})")
        ok = False
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sirun", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--warmup", type=float, default=0.25,
                        help="fraction of the run before the slope is measured")
    parser.add_argument("--max-slope", type=float, default=256,
                        help="KiB per minute any process may grow after the warm-up")
    args = parser.parse_args()
    results = [soak(args, mode, extra) for mode, extra in CONFIGS]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
