#!/usr/bin/env python3
"""MPICH's C test suite (test/mpi of an MPICH source tree) against this runtime.

Builds the programs of the chosen directories with sicc, out of the source tree
(which it never writes), and runs every entry of their testlists under sirun in
each progression mode asked for. An entry passes when sirun exits 0 and the
output says "No Errors" (any case); "Test Skipped" counts apart. The MPI-4
programs, the ones that need MPI-IO, spawn or MPI_T, and the persistent
collectives do not build: they are reported as not built, with the compiler's
reason in their build log.

    harness/mpich_testsuite.py --source ~/src/mpich/test/mpi --bin build/bin \\
        --work out/mpich-tests --modes none,smart datatype pt2pt coll rma

With --abi mpich the programs are built by MPICH's own mpicc.mpich instead and
run on this runtime through the MPICH ABI (sirun --abi mpich): the same
binaries a site would bring. With --abi standard they are built by sicc-abi
against the MPI standard ABI and run on libmpi_abi (sirun --abi standard).

Writes <work>/results.csv (directory, program, ranks, arguments, mode, status,
seconds) and prints a count per directory and mode, then every failure. The
exit status is 0 when every entry that built passed or was skipped.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import time
from pathlib import Path

# What MPICH's configure would find on a Debian/x86-64 machine with this
# runtime's mpi.h (the tests' mpitestconf.h).
CONFIG = """\
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_STRING_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE_INT8_T 1
#define HAVE_INT16_T 1
#define HAVE_INT32_T 1
#define HAVE_INT64_T 1
#define HAVE_UINT8_T 1
#define HAVE_UINT16_T 1
#define HAVE_UINT32_T 1
#define HAVE_UINT64_T 1
#define HAVE__BOOL 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define USE_LONG_DOUBLE_COMPLEX 1
#define HAVE_MPI_INTEGER16 1
#define HAVE_PTHREAD_H 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_VOID_P 8
#define SIZEOF_MPI_OFFSET 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2
#define POINTERINT_t long
"""


def run(command, log=None, **kwargs):
    with open(log, "w") if log else open(os.devnull, "w") as out:
        return subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, **kwargs).returncode


class Builder:
    """Compiles MPICH's test utilities once and each program on demand."""

    def __init__(self, source, work, sicc):
        self.source, self.work, self.sicc = source, work, sicc
        self.include = ["-I", str(work / "cfg"), "-I", str(source / "include"),
                        "-I", str(source / "dtpools" / "include")]

    def prepare(self):
        cfg = self.work / "cfg"
        cfg.mkdir(parents=True, exist_ok=True)
        (cfg / "mpitestconf.h").write_text(CONFIG)
        (cfg / "mtest_mpix.h").write_text("")  # MPICH generates it; empty outside MPICH
        # dtpools includes "../dtpoolsconf.h", which the -I above finds here.
        (self.work / "dtpoolsconf.h").write_text("")
        self.lib = self.work / "lib"
        self.lib.mkdir(exist_ok=True)
        units = [self.source / "util" / f for f in ("mtest.c", "mtest_common.c", "dtypes.c")]
        units += sorted((self.source / "dtpools" / "src").glob("*.c"))
        self.objects = [self.compile(unit) for unit in units]
        # main() of the tests that define run(), and the thread package: real
        # threads for test/mpi/threads, stubs for the others.
        self.main = self.compile(self.source / "util" / "run_mpitests.c")
        self.threads = {kind: self.compile(self.source / "util" / f"mtest_{kind}.c")
                        for kind in ("single", "thread")}

    def compile(self, unit):
        """The object file of one utility source, compiled once."""
        obj = self.lib / (unit.stem + ".o")
        log = self.lib / (unit.stem + ".log")
        if not obj.exists() and run([self.sicc, "-w", "-c", *self.include, str(unit), "-o",
                                     str(obj)], log=log) != 0:
            sys.exit(f"cannot compile {unit}: see {log}")
        return str(obj)

    def build(self, directory, name, sources, flags):
        """The program's path, or None when it does not build."""
        out = self.work / "bin" / directory
        out.mkdir(parents=True, exist_ok=True)
        exe = out / name
        if exe.exists():
            return exe
        files = [str(self.source / directory / s) for s in sources]
        # Newer tests define run() and take main() from run_mpitests.c.
        has_main = any(re.search(r"^int main", Path(f).read_text(errors="replace"), re.M)
                       for f in files)
        threads = self.threads["thread" if directory.startswith("threads") else "single"]
        command = [self.sicc, "-w", *flags, *self.include, *files, *self.objects, threads]
        if not has_main:
            command.append(self.main)
        command += ["-lm", "-lpthread", "-o", str(exe)]
        return exe if run(command, log=out / (name + ".build.log")) == 0 else None


def programs(source, directory):
    """name -> (sources, -D flags): every .c of the directory, and what its
    Makefile.am builds from another source with other flags."""
    found = {p.stem: ([p.name], []) for p in (source / directory).glob("*.c")}
    makefile = source / directory / "Makefile.am"
    if makefile.exists():
        text = makefile.read_text().replace("\\\n", " ")
        flags = {m.group(1): [f for f in m.group(2).split() if f.startswith("-D")]
                 for m in re.finditer(r"^(\w+)_CPPFLAGS\s*=\s*(.+)$", text, re.M)}
        for m in re.finditer(r"^(\w+)_SOURCES\s*=\s*(.+)$", text, re.M):
            sources = [s for s in m.group(2).split() if s.endswith(".c")]
            if sources:
                found[m.group(1)] = (sources, flags.get(m.group(1), []))
    return found


def entries(source, directory):
    """(name, ranks, arguments, environment) of each testlist line."""
    testlist = source / directory / "testlist.in"
    if not testlist.exists():
        testlist = source / directory / "testlist"
    for line in testlist.read_text().splitlines():
        words = line.split()
        # '@...@' lines are configure's substitutions; subdirectories have no rank count.
        if len(words) < 2 or words[0].startswith("#") or "@" in line or not words[1].isdigit():
            continue
        args = [w[len("arg="):] for w in words[2:] if w.startswith("arg=")]
        env = dict(w[len("env="):].split("=", 1) for w in words[2:] if w.startswith("env="))
        yield words[0], int(words[1]), args, env


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="MPICH's test/mpi")
    parser.add_argument("--bin", type=Path, required=True, help="this runtime's build/bin")
    parser.add_argument("--work", type=Path, required=True, help="where to build and log")
    parser.add_argument("--modes", default="none", help="SI_PROGRESS values, comma-separated")
    parser.add_argument("--timeout", type=int, default=180, help="seconds per entry")
    parser.add_argument("--abi", choices=("native", "mpich", "standard"), default="native",
                        help="native: build with sicc; mpich: build with mpicc.mpich and run "
                             "through the MPICH ABI (sirun --abi mpich); standard: build with "
                             "sicc-abi for the MPI standard ABI (sirun --abi standard)")
    parser.add_argument("directories", nargs="+", help="e.g. datatype pt2pt coll rma")
    options = parser.parse_args()
    source, work = options.source.resolve(), options.work.resolve()
    compiler = {"native": str((options.bin / "sicc").resolve()), "mpich": "mpicc.mpich",
                "standard": str((options.bin / "sicc-abi").resolve())}[options.abi]
    builder = Builder(source, work, compiler)
    builder.prepare()
    sirun = str((options.bin / "sirun").resolve())

    rows, failures = [], []
    for directory in options.directories:
        known = programs(source, directory)
        for mode in options.modes.split(","):
            counts = {"pass": 0, "fail": 0, "skipped": 0, "not built": 0}
            logs = work / "logs" / mode / directory
            logs.mkdir(parents=True, exist_ok=True)
            for name, ranks, args, env in entries(source, directory):
                exe = builder.build(directory, name, *known[name]) if name in known else None
                status, seconds = "not built", 0.0
                if exe is not None:
                    log = logs / f"{name}.{ranks}.{len(rows)}.log"
                    started = time.monotonic()
                    rc = run([sirun, "--abi", options.abi, "-n", str(ranks), "--timeout",
                              str(options.timeout), str(exe), *args], log=log, cwd=exe.parent,
                             env={**os.environ, **env, "SI_PROGRESS": mode})
                    seconds = time.monotonic() - started
                    output = log.read_text(errors="replace")
                    if "Test Skipped" in output:
                        status = "skipped"
                    elif rc == 0 and "no errors" in output.lower():
                        status = "pass"
                    else:
                        status = "fail"
                        failures.append(f"{mode} {directory}/{name} -n {ranks} {' '.join(args)}"
                                        f" (exit {rc}): {log}")
                counts[status] += 1
                rows.append([directory, name, ranks, " ".join(args), mode, status,
                             f"{seconds:.1f}"])
            print(f"{directory} {mode}: " + ", ".join(f"{k} {v}" for k, v in counts.items()),
                  flush=True)
    with open(work / "results.csv", "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["directory", "program", "ranks", "arguments", "mode", "status",
                         "seconds"])
        writer.writerows(rows)
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
