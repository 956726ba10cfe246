#!/usr/bin/env python3
"""Generates libmpi_abi, the MPI 5.0 standard ABI over this runtime, from the
runtime's mpi.h (its calls) and standard.py (the standard's values):

  generate.py MPI_H OUT_DIR ABI_HEADER

writes ABI_HEADER, the mpi.h programs compile against (sicc-abi): the
standard's types and values and the calls this runtime has (those of mpi.h
the standard still has), and into OUT_DIR:
  standard_values.hpp    the standard's integer values as C++ constants
  standard_tables.inc    pairs (standard value, the runtime's macro), for
                         convert.cpp, which compiles against include/mpi.h
  native_calls.hpp       the runtime's entry points under their new names
                         (abi_native_PMPI_x), with the runtime's types
  wrappers.cpp           MPI_x/PMPI_x of the standard ABI: convert, call, convert
  exports.map            the linker's list of what libmpi_abi exports
  renames.txt            objcopy's list renaming the runtime's entry points

The runtime's own entry points are renamed in a copy of its api layer, so
that one library holds both and exports only the standard's.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fortran"))
import generate as fortran_generate  # noqa: E402  (parse_calls)
import standard  # noqa: E402

# The runtime's calls that MPI 4.0 removed (the standard ABI has none of them).
REMOVED = {"MPI_Address", "MPI_Errhandler_create", "MPI_Errhandler_get", "MPI_Errhandler_set",
           "MPI_Type_extent", "MPI_Type_hindexed", "MPI_Type_hvector", "MPI_Type_lb",
           "MPI_Type_struct", "MPI_Type_ub"}
# Written in callbacks.cpp: callbacks, attribute values that are constants,
# datatype arrays sized by the communicator, the variadic MPI_Pcontrol, and
# MPI_Comm_idup, whose new handle is written when the request completes.
HANDWRITTEN = {"MPI_Pcontrol", "MPI_Op_create", "MPI_Comm_create_errhandler",
               "MPI_Win_create_errhandler", "MPI_Comm_create_keyval", "MPI_Type_create_keyval",
               "MPI_Win_create_keyval", "MPI_Keyval_create", "MPI_Comm_get_attr",
               "MPI_Attr_get", "MPI_Win_get_attr", "MPI_Grequest_start", "MPI_Alltoallw",
               "MPI_Ialltoallw", "MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw",
               "MPI_Status_c2f", "MPI_Status_f2c", "MPI_Type_get_contents", "MPI_Comm_idup",
               "MPI_Comm_idup_with_info"}
# MPI_x_c2f/MPI_x_f2c: the same integers as MPI_x_toint/MPI_x_fromint,
# generated with them (ABI_ONLY) rather than from mpi.h.
CONVERSIONS = {f"MPI_{kind}_{way}" for kind in ("Comm", "Errhandler", "Group", "Info", "Message",
                                                "Op", "Request", "Type", "Win")
               for way in ("c2f", "f2c")}
# Calls only the ABI has: MPI_Abi_get_version (callbacks.cpp) and the handle
# conversions (generated below).
ABI_ONLY = [
    ("int", "MPI_Abi_get_version", "int *abi_major, int *abi_minor"),
] + [
    (ret, f"MPI_{kind}_{way}", params)
    for kind, handle in [("Comm", "MPI_Comm"), ("Errhandler", "MPI_Errhandler"),
                         ("Group", "MPI_Group"), ("Info", "MPI_Info"),
                         ("Message", "MPI_Message"), ("Op", "MPI_Op"),
                         ("Request", "MPI_Request"), ("Type", "MPI_Datatype"),
                         ("Win", "MPI_Win")]
    for ret, way, params in [(handle, "fromint", "int value"), ("int", "toint", f"{handle} handle"),
                             (handle, "f2c", "MPI_Fint value"), ("MPI_Fint", "c2f", f"{handle} handle")]
]

HANDLE_KINDS = {"MPI_Comm": "MPI_ABI_Comm", "MPI_Datatype": "MPI_ABI_Datatype",
                "MPI_Errhandler": "MPI_ABI_Errhandler", "MPI_Group": "MPI_ABI_Group",
                "MPI_Info": "MPI_ABI_Info", "MPI_Message": "MPI_ABI_Message",
                "MPI_Op": "MPI_ABI_Op", "MPI_Request": "MPI_ABI_Request", "MPI_Win": "MPI_ABI_Win",
                "MPI_File": "MPI_ABI_File", "MPI_Session": "MPI_ABI_Session"}
SCALARS = {"MPI_Aint": "std::intptr_t", "MPI_Count": "long long", "MPI_Offset": "long long",
           "MPI_Fint": "int"}

# Integer parameters whose values are constants to translate, by name.
RANKS = {"source", "dest", "root", "target_rank", "rank", "local_leader", "remote_leader",
         "rank_source", "rank_dest", "newrank"}
TAGS = {"tag", "sendtag", "recvtag"}
CONSTANT_PARAMS = {"required": "thread_level", "provided": "thread_level",
                   "result": "comparison", "split_type": "split_type",
                   "lock_type": "lock_type", "order": "order", "typeclass": "type_class",
                   "combiner": "combiner", "keyval": "keyval", "comm_keyval": "keyval",
                   "type_keyval": "keyval", "win_keyval": "keyval"}
CONSTANT_ARRAYS = {"array_of_distribs": ("si::abi::constant_in(si::abi::Constants::distribution, {})",
                                         "ndims"),
                   "array_of_dargs": ("si::abi::darg_in({})", "ndims")}
RANK_ARRAYS = {"ranks1": "n", "ranks2": "n"}
WEIGHTS = {"weights", "sourceweights", "destweights"}
BUFFERS = {"sendbuf", "recvbuf"}
# Calls that read the handle they are given a pointer to (and may change it);
# in all others a handle pointer is only written.
READS_HANDLE = {"MPI_Wait", "MPI_Test", "MPI_Cancel", "MPI_Start", "MPI_Request_free",
                "MPI_Mrecv", "MPI_Imrecv", "MPI_Type_commit", "MPI_Comm_disconnect"}
# Lengths of handle and status arrays, by call.
ARRAY_LENGTHS = {"MPI_Waitsome": "incount", "MPI_Testsome": "incount",
                 "MPI_Type_get_contents": "max_datatypes"}

# The standard's integer constants in the groups convert.cpp translates by.
CONSTANT_GROUPS = [
    ("thread_level", r"MPI_THREAD_"), ("comparison", r"MPI_(IDENT|CONGRUENT|SIMILAR|UNEQUAL)$"),
    ("topology", r"MPI_(CART|GRAPH|DIST_GRAPH)$"), ("split_type", r"MPI_COMM_TYPE_"),
    ("lock_type", r"MPI_LOCK_"), ("order", r"MPI_ORDER_"), ("distribution", r"MPI_DISTRIBUTE_"),
    ("type_class", r"MPI_TYPECLASS_"), ("combiner", r"MPI_COMBINER_"),
    ("keyval", r"MPI_(KEYVAL_INVALID|TAG_UB|IO|HOST|WTIME_IS_GLOBAL|APPNUM|LASTUSEDCODE|"
               r"UNIVERSE_SIZE|WIN_BASE|WIN_DISP_UNIT|WIN_SIZE|WIN_CREATE_FLAVOR|WIN_MODEL)$"),
    ("win_flavor", r"MPI_WIN_FLAVOR_"), ("win_model", r"MPI_WIN_(UNIFIED|SEPARATE)$"),
    ("error_class", r"MPI_(SUCCESS|ERR_\w+)$"), ("assert_bit", r"MPI_MODE_NO"),
]


def native_macros(header):
    return set(re.findall(r"^#define (MPI_\w+)", open(header).read(), re.M))


def abi_type(t):
    for name, kind in HANDLE_KINDS.items():
        t = re.sub(rf"\b{name}\b", kind + "*", t)
    t = re.sub(r"\bMPI_Status\b", "si::abi::Status", t)
    for name, scalar in SCALARS.items():
        t = re.sub(rf"\b{name}\b", scalar, t)
    return t


def native_type(t):
    for name in HANDLE_KINDS:
        t = re.sub(rf"\b{name}\b", "int", t)
    t = re.sub(r"\bMPI_Status\b", "si::abi::NativeStatus", t)
    for name, scalar in SCALARS.items():
        t = re.sub(rf"\b{name}\b", scalar, t)
    return re.sub(r"\bMPI_\w+_function\b", "void", t)


def declaration(ret, name, params, typer):
    text = ", ".join(f"{typer(t)} {n}{a}" if n else typer(t) for t, n, a in params) or "void"
    return f"{typer(ret)} {name}({text})"


def handle_name(t):
    base = t.replace("const", "").replace("*", "").strip()
    return base if base in HANDLE_KINDS else None


def wrapper(ret, name, params):
    """The body of one generated entry point."""
    pre, args, post = [], [], []
    by_name = {n: (t, a) for t, n, a in params}
    for t, n, a in params:
        kind = handle_name(t)
        is_pointer = "*" in t
        if t == "...":
            raise ValueError(f"{name}: variadic, write it by hand")
        if kind and a:  # an array of handles
            length = ARRAY_LENGTHS.get(name, "count" if "count" in by_name else "incount")
            pre.append(f"si::abi::CallArray<int> {n}_n(si::abi::array_size({length}));")
            pre.append(f"for (int i = 0; i < {length}; ++i) {n}_n[i] = si::abi::native_handle({n}[i]);")
            args.append(f"{n}_n.data()")
            if "const" not in t:
                post.append(f"for (int i = 0; i < {length}; ++i) "
                            f"{n}[i] = si::abi::to_abi<{HANDLE_KINDS[kind]}*>({n}_n[i]);")
        elif kind and is_pointer:  # one handle, in and out
            reads = name in READS_HANDLE or name.endswith("_free") or "const" in t
            pre.append(f"int {n}_n = {n} ? si::abi::native_handle(*{n}) : 0;" if reads else
                       f"int {n}_n = 0;")
            args.append(f"{n} ? &{n}_n : nullptr")
            # A handle only written: left as it was unless the runtime wrote
            # one (no handle of the runtime is 0).
            if "const" not in t:
                post.append(f"if ({n}{'' if reads else f' && {n}_n != 0'}) "
                            f"*{n} = si::abi::to_abi<{HANDLE_KINDS[kind]}*>({n}_n);")
        elif kind:
            args.append(f"si::abi::native_handle({n})")
        elif "MPI_Status" in t and a:  # statuses of an array of requests
            length = ARRAY_LENGTHS.get(name, "count" if "count" in by_name else "incount")
            pre.append(f"si::abi::CallArray<si::abi::NativeStatus, 8> {n}_n("
                       f"{n} ? si::abi::array_size({length}) : 0);")
            pre.append(f"if ({n}) for (int i = 0; i < {length}; ++i) "
                       f"{n}_n[i] = si::abi::unwritten();")
            args.append(f"{n} ? {n}_n.data() : si::abi::native_status_ignore()")
            post.append(f"if ({n}) for (int i = 0; i < {length}; ++i) "
                        f"si::abi::status_out({n}_n[i], &{n}[i]);")
        elif "MPI_Status" in t:
            # Read only by the calls that take a status (MPI_Get_count,
            # MPI_Status_set_*); the others only write it.
            reads = "const" in t or name.startswith("MPI_Status_set")
            pre.append(f"si::abi::NativeStatus {n}_n = si::abi::unwritten();")
            if reads:
                pre.append(f"si::abi::status_in({n}, &{n}_n);")
            args.append(f"{n} ? &{n}_n : si::abi::native_status_ignore()")
            if "const" not in t:
                post.append(f"si::abi::status_out({n}_n, {n});")
        elif n in BUFFERS and "void" in t:
            args.append(f"const_cast<void*>(si::abi::native_buffer({n}))")
        elif n in WEIGHTS:
            args.append(f"const_cast<int*>(si::abi::native_weights({n}))")
        elif n in CONSTANT_ARRAYS:
            convert, length = CONSTANT_ARRAYS[n]
            pre.append(f"si::abi::CallArray<int> {n}_n(si::abi::array_size({length}));")
            pre.append(f"for (int i = 0; i < {length}; ++i) {n}_n[i] = "
                       + convert.format(f"{n}[i]") + ";")
            args.append(f"{n}_n.data()")
        elif n in RANK_ARRAYS:
            length = RANK_ARRAYS[n]
            if "const" in t:
                pre.append(f"si::abi::CallArray<int> {n}_n(si::abi::array_size({length}));")
                pre.append(f"for (int i = 0; i < {length}; ++i) {n}_n[i] = si::abi::rank_in({n}[i]);")
                args.append(f"{n}_n.data()")
            else:
                args.append(n)
                post.append(f"for (int i = 0; i < {length}; ++i) {n}[i] = si::abi::rank_out({n}[i]);")
        elif t in ("int", "const int") or (t == "int *" and not a):
            scalar = t != "int *"
            conv_in = conv_out = None
            if n in RANKS:
                conv_in, conv_out = "si::abi::rank_in({})", "si::abi::rank_out({})"
            elif n in TAGS:
                conv_in, conv_out = "si::abi::tag_in({})", "si::abi::tag_out({})"
            elif n in CONSTANT_PARAMS:
                g = CONSTANT_PARAMS[n]
                conv_in = f"si::abi::constant_in(si::abi::Constants::{g}, {{}})"
                conv_out = f"si::abi::constant_out(si::abi::Constants::{g}, {{}})"
            elif n == "status" and name == "MPI_Topo_test":
                conv_out = "si::abi::constant_out(si::abi::Constants::topology, {})"
            elif n == "assert":
                conv_in = "si::abi::assert_in({})"
            elif n in ("errorcode", "errorclass") and name != "MPI_Abort":
                conv_in, conv_out = "si::abi::error_in({})", "si::abi::error_out({})"
            if scalar:
                args.append(conv_in.format(n) if conv_in else n)
            elif conv_in or conv_out:
                # Only a key being freed is read; the others are results, written
                # when the call succeeds.
                reads = name.endswith(("_free_keyval", "Keyval_free"))
                value_in = conv_in.format("*" + n) if conv_in else "*" + n
                pre.append(f"int {n}_n = {n} ? {value_in} : 0;" if reads else f"int {n}_n = 0;")
                args.append(f"{n} ? &{n}_n : nullptr")
                value_out = conv_out.format(n + "_n") if conv_out else n + "_n"
                post.append(f"if ({n}{'' if reads else ' && rc == 0'}) *{n} = {value_out};")
            else:
                args.append(n)
        else:
            args.append(n)
    call = f"abi_native_P{name}({', '.join(args)})"
    lines = list(pre)
    kind = handle_name(ret)
    if ret == "int":
        lines.append(f"const int rc = {call};")
        lines += post
        lines.append("return si::abi::result_out(rc);")
    elif kind:
        lines.append(f"return si::abi::to_abi<{HANDLE_KINDS[kind]}*>({call});")
    else:
        lines.append(f"return {call};")
    return lines


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        with open(path, "w") as f:
            f.write(text)


def header(calls, abi_only):
    """include/mpi.h of the standard ABI."""
    out = ["/* mpi.h of libmpi_abi: the MPI 5.0 standard ABI (chapter 20) over the",
           " * SmartInterrupts runtime. Generated by runtime/src/abi/generate.py from the",
           " * standard's values (standard.py) and the calls the runtime has. */",
           "#ifndef SI_MPI_ABI_H", "#define SI_MPI_ABI_H", "",
           "#include <stddef.h>", "#include <stdint.h>", "",
           "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
           "/* The standard the runtime implements, as its own mpi.h says. */",
           "#define MPI_VERSION 3", "#define MPI_SUBVERSION 1",
           "#define MPI_ABI_VERSION 1", "#define MPI_ABI_SUBVERSION 0", "",
           "typedef intptr_t MPI_Aint;", "typedef int64_t MPI_Offset;",
           "typedef MPI_Offset MPI_Count;", "typedef int MPI_Fint;", "",
           "typedef struct MPI_Status {", "    int MPI_SOURCE;", "    int MPI_TAG;",
           "    int MPI_ERROR;", "    int MPI_internal[5];", "} MPI_Status;", ""]
    for handle, kind in HANDLE_KINDS.items():
        out.append(f"typedef struct {kind} *{handle};")
    out.append("")
    for handle, entries in standard.HANDLES.items():
        for name, value in entries:
            out.append(f"#define {name} (({handle})0x{value:03x})")
    for alias, name in standard.HANDLE_ALIASES.items():
        out.append(f"#define {alias} {name}")
    out.append("")
    for name, value in standard.INTEGERS.items():
        out.append(f"#define {name} ({value})")
    out += ["",
            "#define MPI_BOTTOM ((void *)0)", "#define MPI_IN_PLACE ((void *)1)",
            "#define MPI_BUFFER_AUTOMATIC ((void *)2)", "#define MPI_ARGV_NULL ((char **)0)",
            "#define MPI_ARGVS_NULL ((char ***)0)", "#define MPI_ERRCODES_IGNORE ((int *)0)",
            "#define MPI_STATUS_IGNORE ((MPI_Status *)0)",
            "#define MPI_STATUSES_IGNORE ((MPI_Status *)0)",
            "#define MPI_UNWEIGHTED ((int *)10)", "#define MPI_WEIGHTS_EMPTY ((int *)11)",
            "#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-1)", ""]
    for name, value in standard.STRING_SIZES.items():
        out.append(f"#define {name} {value}")
    out += ["",
            "typedef void(MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);",
            "typedef int(MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);",
            "typedef int(MPI_Grequest_free_function)(void *extra_state);",
            "typedef int(MPI_Grequest_cancel_function)(void *extra_state, int complete);"]
    for kind, handle in [("Comm", "MPI_Comm"), ("Type", "MPI_Datatype"), ("Win", "MPI_Win")]:
        out.append(f"typedef int(MPI_{kind}_copy_attr_function)({handle} object, int keyval, "
                   "void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);")
        out.append(f"typedef int(MPI_{kind}_delete_attr_function)({handle} object, int keyval, "
                   "void *attribute_val, void *extra_state);")
    out += ["typedef MPI_Comm_copy_attr_function MPI_Copy_function;",
            "typedef MPI_Comm_delete_attr_function MPI_Delete_function;",
            "typedef void(MPI_Comm_errhandler_function)(MPI_Comm *comm, int *error_code, ...);",
            "typedef void(MPI_Win_errhandler_function)(MPI_Win *win, int *error_code, ...);",
            "typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;",
            "typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;"]
    for kind, fn in [("", "MPI"), ("COMM_", "MPI_Comm"), ("TYPE_", "MPI_Type"), ("WIN_", "MPI_Win")]:
        copy = "MPI_Copy_function" if not kind else f"{fn}_copy_attr_function"
        delete = "MPI_Delete_function" if not kind else f"{fn}_delete_attr_function"
        out.append(f"#define MPI_{kind}NULL_COPY_FN (({copy} *)0)")
        out.append(f"#define MPI_{kind}DUP_FN (({copy} *)1)")
        out.append(f"#define MPI_{kind}NULL_DELETE_FN (({delete} *)0)")
    out.append("")
    for ret, name, params in calls:
        # Pointers rather than arrays: GCC checks an array parameter's reads
        # (-Wstringop-overread) and so rejects the standard's MPI_UNWEIGHTED.
        text = ", ".join(f"{t} *{n}" if a == "[]" else f"{t} {n}{a}" if n else t
                         for t, n, a in params) or "void"
        out.append(f"{ret} {name}({text});")
        out.append(f"{ret} P{name}({text});")
    for ret, name, params in abi_only:
        out.append(f"{ret} {name}({params});")
        out.append(f"{ret} P{name}({params});")
    out += ["", "#ifdef __cplusplus", "}", "#endif", "#endif", ""]
    return "\n".join(out)


def standard_values():
    out = ["// Generated by runtime/src/abi/generate.py: the standard ABI's integer values.",
           "#pragma once", "", "namespace si::abi::standard {"]
    for name, value in standard.INTEGERS.items():
        out.append(f"inline constexpr int {name.lower()} = {value};")
    for entries in standard.HANDLES.values():
        for name, value in entries:
            out.append(f"inline constexpr int {name.lower()} = 0x{value:03x};")
    out += ["}  // namespace si::abi::standard", ""]
    return "\n".join(out)


def tables(native):
    """Pairs (standard value, the runtime's macro) where mpi.h has the name."""
    out = ["// Generated by runtime/src/abi/generate.py; included by convert.cpp.",
           "// SI_ABI_HANDLE(standard, native) and SI_ABI_CONSTANT(group, standard, native)."]
    for entries in standard.HANDLES.values():
        for name, value in entries:
            if name in native:
                out.append(f"SI_ABI_HANDLE(0x{value:03x}, {name})")
    for name, value in standard.INTEGERS.items():
        if name not in native:
            continue
        for group, pattern in CONSTANT_GROUPS:
            if re.match(pattern, name):
                out.append(f"SI_ABI_CONSTANT({group}, {value}, {name})")
                break
    return "\n".join(out) + "\n"


def main():
    mpi_h, out_dir, abi_header = sys.argv[1], sys.argv[2], sys.argv[3]
    native = native_macros(mpi_h)
    calls = [c for c in fortran_generate.parse_calls(mpi_h) if c[1] not in REMOVED]
    write(abi_header, header([c for c in calls if c[1] not in CONVERSIONS], ABI_ONLY))
    write(os.path.join(out_dir, "standard_values.hpp"), standard_values())
    write(os.path.join(out_dir, "standard_tables.inc"), tables(native))

    decls = ["// Generated by runtime/src/abi/generate.py: the runtime's entry points,",
             "// renamed in libmpi_abi's copy of the api layer (renames.txt).",
             "#pragma once", "", "#include <cstdint>", "", '#include "abi/convert.hpp"', "",
             'extern "C" {']
    for ret, name, params in calls:
        decls.append(declaration(ret, f"abi_native_P{name}", params, native_type) + ";")
    decls += ["int abi_native_MPI_COMM_DUP_FN(int, int, void*, void*, void*, int*);",
              "int abi_native_MPI_TYPE_DUP_FN(int, int, void*, void*, void*, int*);",
              "int abi_native_MPI_WIN_DUP_FN(int, int, void*, void*, void*, int*);",
              "int abi_native_MPI_DUP_FN(int, int, void*, void*, void*, int*);",
              "}", ""]
    write(os.path.join(out_dir, "native_calls.hpp"), "\n".join(decls))

    body = ["// Generated by runtime/src/abi/generate.py: the standard ABI's entry points.",
            '#include "native_calls.hpp"', "", 'extern "C" {', ""]
    for ret, name, params in calls:
        if name in HANDWRITTEN or name in CONVERSIONS:
            continue
        body.append(declaration(ret, f"P{name}", params, abi_type) + " {")
        body += ["    " + line for line in wrapper(ret, name, params)]
        body.append("}")
        body.append(f"#pragma weak {name} = P{name}")
        body.append("")
    # MPI_x_toint/fromint and c2f/f2c: a predefined handle is its standard value, a
    # handle the runtime created the runtime's integer (both as Fortran sees them).
    for ret, name, params in ABI_ONLY:
        if name == "MPI_Abi_get_version":
            continue
        kind = HANDLE_KINDS[ret] if ret in HANDLE_KINDS else HANDLE_KINDS[params.split()[0]]
        if name.endswith(("_toint", "_c2f")):
            body.append(f"int P{name}({kind}* handle) {{ return si::abi::handle_int(handle); }}")
        else:
            body.append(f"{kind}* P{name}(int value) {{ "
                        f"return static_cast<{kind}*>(si::abi::int_handle(value)); }}")
        body.append(f"#pragma weak {name} = P{name}")
    body += ["", "}", ""]
    write(os.path.join(out_dir, "wrappers.cpp"), "\n".join(body))

    names = sorted({name for _, name, _ in calls} | {name for _, name, _ in ABI_ONLY})
    exports = ["{", "  global:"] + [f"    {p}{n};" for n in names for p in ("", "P")]
    exports += ["  local:", "    *;", "};", ""]
    write(os.path.join(out_dir, "exports.map"), "\n".join(exports))

    renamed = [f"{p}{name} abi_native_P{name}" if p == "P" else f"{name} abi_native_{name}"
               for _, name, _ in fortran_generate.parse_calls(mpi_h) for p in ("", "P")]
    renamed += [f"MPI_{k}DUP_FN abi_native_MPI_{k}DUP_FN" for k in ("", "COMM_", "TYPE_", "WIN_")]
    write(os.path.join(out_dir, "renames.txt"), "\n".join(renamed) + "\n")


if __name__ == "__main__":
    main()
