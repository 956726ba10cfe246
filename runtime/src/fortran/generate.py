#!/usr/bin/env python3
"""Generates the Fortran side of libsimpi from mpi.h, so that it cannot drift
from the C API:

  generate.py bindings MPI_H BINDINGS_CPP MODULE_F90
      the mpi_x_/pmpi_x_ entry points gfortran calls, for every call of mpi.h
      except those written by hand (handwritten.cpp) or left out (below); and
      the `mpi` module: mpif.h plus explicit interfaces for the calls taking
      choice buffers, which accept any type and rank (NO_ARG_CHECK), so that
      `use mpi` programs need no -fallow-argument-mismatch.

  generate.py left-out
      the calls with no Fortran binding, one per line (for the test that
      every other exported MPI_x has its mpi_x_).

  generate.py constants CC MPI_H CONSTANTS_C
      a C program writing mpif.h (its one argument is the path): every integer
      macro MPI_X of mpi.h (as `CC -dM -E` lists them) becomes a PARAMETER of
      the same value, which the C compiler computes.

mpif.h is written to work as fixed and as free source form: six leading
blanks, no continuation lines, lines under 72 columns.
"""
import re
import subprocess
import sys

# Written by hand in handwritten.cpp: strings returned, info keys and values
# (leading blanks go too), 1-based indices, functions returning values,
# attribute values, MPI_Init's arguments. Other input strings are generated.
HANDWRITTEN = {
    "MPI_Init", "MPI_Init_thread", "MPI_Wtime", "MPI_Wtick", "MPI_Pcontrol",
    "MPI_Aint_add", "MPI_Aint_diff",
    "MPI_Get_processor_name", "MPI_Get_library_version", "MPI_Error_string",
    "MPI_Comm_get_name", "MPI_Type_get_name", "MPI_Info_set", "MPI_Info_get",
    "MPI_Info_get_valuelen", "MPI_Info_delete", "MPI_Info_get_nthkey",
    "MPI_Waitany", "MPI_Testany", "MPI_Waitsome", "MPI_Testsome",
    "MPI_Buffer_detach", "MPI_Info_get_string", "MPI_Info_create_env",
    # handwritten.cpp: Fortran callbacks, called through C trampolines
    "MPI_Grequest_start",
    # handwritten.cpp: MPI-1's removed calls take addresses as default INTEGERs
    "MPI_Address", "MPI_Type_extent", "MPI_Type_lb", "MPI_Type_ub", "MPI_Type_hvector",
    "MPI_Type_hindexed", "MPI_Type_struct",
    # attributes.cpp: values are integers, callbacks take them by reference
    "MPI_Comm_create_keyval", "MPI_Type_create_keyval", "MPI_Keyval_create",
    "MPI_Comm_get_attr", "MPI_Attr_get", "MPI_Comm_set_attr", "MPI_Attr_put",
    "MPI_Type_set_attr", "MPI_Type_get_attr",
    "MPI_Win_create_keyval", "MPI_Win_set_attr", "MPI_Win_get_attr",
    # handwritten.cpp: names; window memory returned as an address
    "MPI_Win_get_name", "MPI_Win_allocate", "MPI_Win_allocate_shared",
    "MPI_Win_shared_query",
}
# No Fortran binding (beside the C-only MPI_*_f2c/c2f conversions): none today.
LEFT_OUT = set()

HANDLE_TYPES = {"int", "const int", "MPI_Comm", "MPI_Datatype", "MPI_Group", "MPI_Info",
                "MPI_Op", "MPI_Errhandler", "MPI_Request", "MPI_Message", "MPI_Win"}
WIDE_TYPES = {"MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Count": "MPI_COUNT_KIND",
              "MPI_Offset": "MPI_OFFSET_KIND"}
FUNCTION_TYPES = {"MPI_User_function", "MPI_Comm_errhandler_function", "MPI_Handler_function",
                  "MPI_Win_errhandler_function"}
LOGICAL_NAMES = {"flag", "commute", "reorder", "periods", "high", "remain_dims"}


def parse_calls(header):
    text = open(header).read()
    pattern = re.compile(r"SI_MPI_CALL\(\s*([^,]+),\s*(MPI_\w+),\s*\((.*?)\)\);", re.S)
    calls = []
    for result, name, params in pattern.findall(text):
        params = " ".join(params.split())
        parsed = []
        if params != "void":
            for param in params.split(","):
                m = re.match(r"(.*?)(\w+)((?:\[\w*\])*)$", param.strip())
                if not m:
                    parsed.append((param.strip(), None, ""))
                    continue
                parsed.append((" ".join(m.group(1).split()), m.group(2), m.group(3)))
        calls.append((result.strip(), name, parsed))
    return calls


def is_choice(ctype):
    return ctype in ("void *", "const void *")


class Binding:
    """One call's Fortran entry point: parameters, the C call's arguments,
    locals that convert, and the interface's declarations."""

    def __init__(self, name, params):
        self.name = name
        self.fparams, self.args, self.locals, self.decls = [], [], [], []
        self.lengths = []  # of CHARACTER arguments: hidden, after all others
        self.choice = False
        count = next((n for t, n, s in params if t == "int" and n in ("count", "incount")), None)
        for ctype, pname, suffix in params:
            self.add(ctype, pname, suffix, count)

    def add(self, ctype, name, suffix, count):
        base = ctype.replace("const ", "")
        const = "const " if ctype.startswith("const ") else ""
        if is_choice(ctype) and not suffix:
            self.choice = True
            self.fparams.append(f"{const}void* {name}")
            self.args.append(f"si::fortran::buffer({name})")
            self.decls.append(("!GCC$ ATTRIBUTES NO_ARG_CHECK :: " + name, None))
            self.decls.append((f"type(*), dimension(*) :: {name}", name))
        elif ctype in HANDLE_TYPES and not suffix:
            self.fparams.append(f"const MPI_Fint* {name}")
            self.args.append(f"*{name}")
            self.decls.append((f"integer :: {name}", name))
        elif ctype in WIDE_TYPES and not suffix:
            self.fparams.append(f"const {ctype}* {name}")
            self.args.append(f"*{name}")
            self.decls.append((f"integer(kind={WIDE_TYPES[ctype]}) :: {name}", name))
        elif base in ("MPI_Status *",) and not suffix:
            self.fparams.append(f"{const}MPI_Fint* {name}")
            self.locals.append(f"si::fortran::StatusArg {name}_c({name});")
            self.args.append(f"{name}_c.get()")
            self.decls.append((f"integer, dimension(MPI_STATUS_SIZE) :: {name}", name))
        elif base == "MPI_Status" and suffix == "[]":
            assert count, self.name
            self.fparams.append(f"MPI_Fint* {name}")
            self.locals.append(f"si::fortran::StatusArray {name}_c({name}, *{count});")
            self.args.append(f"{name}_c.get()")
            self.decls.append((f"integer, dimension(MPI_STATUS_SIZE, *) :: {name}", name))
        elif (ctype, suffix) in (("const char", "[]"), ("const char *", "")):
            self.fparams.append(f"const char* {name}")
            self.lengths.append(f"std::size_t {name}_length")
            self.args.append(f"si::fortran::string_in({name}, {name}_length).c_str()")
            self.decls.append((f"character(len=*) :: {name}", name))
        elif suffix == "[][3]":
            self.fparams.append(f"MPI_Fint (*{name})[3]")
            self.args.append(name)
            self.decls.append((f"integer, dimension(3, *) :: {name}", name))
        elif suffix == "[]" or base.endswith("*"):
            element = base.rstrip(" *")
            if element in FUNCTION_TYPES:
                self.fparams.append(f"{element}* {name}")
                self.args.append(name)
                self.decls.append((f"external :: {name}", name))
                return
            wide = WIDE_TYPES.get(element)
            ftype = element if wide else "MPI_Fint"
            kind = f"integer(kind={wide})" if wide else "integer"
            assert wide or element in HANDLE_TYPES, (self.name, ctype, name)
            self.fparams.append(f"{const}{ftype}* {name}")
            self.args.append(f"si::fortran::weights({name})" if name.endswith("weights")
                             else name)
            shape = ", dimension(*)" if suffix else ""
            self.decls.append((f"{kind}{shape} :: {name}", name))
        else:
            raise SystemExit(f"generate.py: no Fortran rule for {ctype} {name}{suffix} "
                             f"in {self.name}")

    def cpp(self):
        lower = self.name.lower()
        params = ", ".join(self.fparams + ["MPI_Fint* ierr"] + self.lengths)
        body = "".join(f"    {line}\n" for line in self.locals)
        body += f"    *ierr = {self.name}({', '.join(self.args)});\n"
        return (f"void p{lower}_({params}) {{\n{body}}}\n"
                f"#pragma weak {lower}_ = p{lower}_\n")

    def interface(self):
        names = [n for _, n in self.decls if n] + ["ierror"]
        for _, n in self.decls:
            assert n not in LOGICAL_NAMES, (self.name, n)
        lines = [wrap(f"    subroutine {self.name.lower()}(", names, ")"),
                 "      import :: MPI_ADDRESS_KIND, MPI_COUNT_KIND, MPI_OFFSET_KIND, MPI_STATUS_SIZE",
                 "      implicit none"]
        for decl, _ in self.decls:
            lines.append(decl if decl.startswith("!") else "      " + decl)
        lines += ["      integer :: ierror", f"    end subroutine {self.name.lower()}"]
        return "\n".join(lines) + "\n"


def wrap(head, items, tail, width=100):
    """Free-form Fortran lines stop at 132 columns: continue with '&'."""
    lines, line = [], head
    for i, item in enumerate(items):
        piece = item + (", " if i + 1 < len(items) else "")
        if len(line) + len(piece) > width:
            lines.append(line.rstrip() + " &")
            line = "        "
        line += piece
    return "\n".join(lines + [line + tail])


def generate_bindings(header, cpp_path, module_path):
    bindings, interfaces = [], []
    for result, name, params in parse_calls(header):
        if name in LEFT_OUT or name.endswith(("_f2c", "_c2f")):
            continue
        if name in HANDWRITTEN:
            continue
        assert result == "int", name
        binding = Binding(name, params)
        bindings.append(binding.cpp())
        if binding.choice:
            interfaces.append(binding.interface())
    with open(cpp_path, "w") as out:
        out.write("// Generated by runtime/src/fortran/generate.py from mpi.h: do not edit.\n"
                  "// Each pmpi_x_ converts its Fortran arguments and calls MPI_x (so that\n"
                  "// a C profiling tool sees Fortran calls too); mpi_x_ is its weak alias.\n"
                  "#include \"fortran/arguments.hpp\"\n\nextern \"C\" {\n\n")
        out.write("\n".join(bindings))
        out.write("\n}  // extern \"C\"\n")
    with open(module_path, "w") as out:
        out.write("! Generated by runtime/src/fortran/generate.py from mpi.h: do not edit.\n"
                  "module mpi\n  implicit none\n  include 'mpif.h'\n\n  interface\n")
        out.write("\n".join(interfaces))
        out.write("  end interface\nend module mpi\n")


# ---- mpif.h -------------------------------------------------------------------

# Pointer-valued macros have Fortran sentinels instead (the common block).
SENTINELS = """\
!     Sentinels, recognised by address, in MPICH's common blocks: they must
!     stay in this order (runtime/src/fortran/arguments.hpp).
      INTEGER MPI_BOTTOM, MPI_IN_PLACE
      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)
      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE, 1)
      INTEGER MPI_ERRCODES_IGNORE(1)
      CHARACTER*1 MPI_ARGVS_NULL(1, 1), MPI_ARGV_NULL(1)
      INTEGER MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY
      COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE
      COMMON /MPIPRIV2/ MPI_STATUSES_IGNORE, MPI_ERRCODES_IGNORE
      COMMON /MPIPRIVC/ MPI_ARGVS_NULL, MPI_ARGV_NULL
      COMMON /MPIFCMB5/ MPI_UNWEIGHTED
      COMMON /MPIFCMB9/ MPI_WEIGHTS_EMPTY
      SAVE /MPIPRIV1/, /MPIPRIV2/, /MPIPRIVC/, /MPIFCMB5/, /MPIFCMB9/
!     Functions.
      DOUBLE PRECISION MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK
      EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK
      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF
      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF
!     The predefined attribute callbacks.
      EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN
      EXTERNAL MPI_COMM_DUP_FN, MPI_TYPE_NULL_COPY_FN
      EXTERNAL MPI_TYPE_NULL_DELETE_FN, MPI_TYPE_DUP_FN
      EXTERNAL MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN
      EXTERNAL MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN
      EXTERNAL MPI_WIN_DUP_FN
"""


# The predefined attribute keys, whose Fortran values differ from C's.
FORTRAN_KEYS = {"MPI_TAG_UB", "MPI_HOST", "MPI_IO", "MPI_WTIME_IS_GLOBAL", "MPI_UNIVERSE_SIZE",
                "MPI_LASTUSEDCODE", "MPI_APPNUM", "MPI_WIN_BASE", "MPI_WIN_SIZE",
                "MPI_WIN_DISP_UNIT", "MPI_WIN_CREATE_FLAVOR", "MPI_WIN_MODEL"}


def generate_constants(compiler, header, c_path):
    macros = subprocess.run([compiler, "-dM", "-E", header], check=True, capture_output=True,
                            text=True).stdout
    names = []
    for line in macros.splitlines():
        m = re.match(r"#define (MPI_[A-Z0-9_]+) (.+)$", line.strip())
        # Pointers and strings are no integer constants; mpif.h has its own
        # sentinels for them.
        if m and "*" not in m.group(2) and '"' not in m.group(2):
            names.append(m.group(1))
    names.sort()
    with open(c_path, "w") as out:
        out.write("/* Generated by runtime/src/fortran/generate.py: prints mpif.h. */\n"
                  "#include <stddef.h>\n#include <stdio.h>\n#include \"mpi.h\"\n\n"
                  "static FILE* out;\n\n"
                  "static void constant(const char* name, long long value) {\n"
                  "    fprintf(out, \"      INTEGER %s\\n      PARAMETER (%s=%lld)\\n\", name, name, value);\n"
                  "}\n\nint main(int argc, char** argv) {\n"
                  "    if (argc != 2 || !(out = fopen(argv[1], \"w\"))) return 1;\n"
                  "    fputs(\"!     mpif.h of the SmartInterrupts runtime (libsimpi), generated from\\n\", out);\n"
                  "    fputs(\"!     mpi.h: the same handles and constants as C.\\n\", out);\n"
                  "    fprintf(out, \"      INTEGER MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND\\n\"\n"
                  "           \"      PARAMETER (MPI_ADDRESS_KIND=%zu)\\n\"\n"
                  "           \"      PARAMETER (MPI_OFFSET_KIND=%zu)\\n\"\n"
                  "           \"      PARAMETER (MPI_COUNT_KIND=%zu)\\n\",\n"
                  "           sizeof(MPI_Aint), sizeof(MPI_Offset), sizeof(MPI_Count));\n"
                  "    constant(\"MPI_INTEGER_KIND\", sizeof(MPI_Fint));\n"
                  "    constant(\"MPI_STATUS_SIZE\", sizeof(MPI_Status) / sizeof(MPI_Fint));\n"
                  "    /* Indices into a Fortran status: where C's fields are. */\n"
                  "    constant(\"MPI_SOURCE\", offsetof(MPI_Status, MPI_SOURCE) / sizeof(MPI_Fint) + 1);\n"
                  "    constant(\"MPI_TAG\", offsetof(MPI_Status, MPI_TAG) / sizeof(MPI_Fint) + 1);\n"
                  "    constant(\"MPI_ERROR\", offsetof(MPI_Status, MPI_ERROR) / sizeof(MPI_Fint) + 1);\n")
        for name in names:
            # MPICH's Fortran attribute keys are the C ones + 1 (fortran/attributes.cpp).
            offset = " + 1" if name in FORTRAN_KEYS else ""
            out.write(f"    constant(\"{name}\", (long long)({name}){offset});\n")
        sentinels = "".join(f"    fputs(\"{line}\\n\", out);\n" for line in SENTINELS.splitlines())
        out.write(sentinels)
        out.write("    return fclose(out) == 0 ? 0 : 1;\n}\n")


def main(argv):
    if len(argv) == 5 and argv[1] == "bindings":
        generate_bindings(argv[2], argv[3], argv[4])
    elif len(argv) == 2 and argv[1] == "left-out":
        print("\n".join(sorted(LEFT_OUT)))
    elif len(argv) == 5 and argv[1] == "constants":
        generate_constants(argv[2], argv[3], argv[4])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
