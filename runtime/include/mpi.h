/*
 * mpi.h of the SmartInterrupts runtime (libsimpi).
 *
 * Standard MPI names and semantics for the subset this runtime implements.
 * Each MPI_x call also exists as PMPI_x (the profiling interface).
 *
 * The binary interface is MPICH's (libmpi.so.12): every predefined handle,
 * constant and error class has MPICH's value, MPI_Status has MPICH's layout,
 * and the sizes of MPI_Aint, MPI_Offset and MPI_Count are MPICH's, so that a
 * program compiled against MPICH's mpi.h runs on this library unchanged
 * (README, "The MPICH ABI"). Handles are integers laid out as MPICH lays
 * them out: bits 26-29 say which kind of object a handle names (so that a
 * communicator passed where a datatype is expected is reported as such),
 * bits 30-31 whether it is a null handle (0), a predefined one (1) or one
 * created at run time (3; MPICH's 2 appears only in MPI_FLOAT_INT and its
 * kin), and a predefined datatype's bits 8-15 its size in bytes.
 */
#ifndef SI_MPI_H
#define SI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define SI_MPI 1 /* lets a program tell this runtime from another MPI */

/* ---- handle types ------------------------------------------------------ */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Group;
typedef int MPI_Info;
typedef int MPI_Message;
typedef int MPI_Win;
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint; /* a Fortran INTEGER (gfortran's default kind) */

typedef struct MPI_Status {
    /* The bytes received, in two halves: count_hi_and_cancelled holds the
     * high half shifted left by one, and in its lowest bit whether the
     * request was cancelled (MPI_Test_cancelled). */
    int count_lo;
    int count_hi_and_cancelled;
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} MPI_Status;

typedef void(MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void(MPI_Comm_errhandler_function)(MPI_Comm *comm, int *error_code, ...);
typedef void(MPI_Win_errhandler_function)(MPI_Win *win, int *error_code, ...);
/* Attribute callbacks (MPI_Comm_create_keyval, MPI_Type_create_keyval, and
 * the deprecated MPI_Keyval_create). */
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out,
                                         int *flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                           void *extra_state);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval,
                                         void *extra_state, void *attribute_val_in,
                                         void *attribute_val_out, int *flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval,
                                           void *attribute_val, void *extra_state);
typedef int(MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void *attribute_val,
                                          void *extra_state);
typedef int(MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int(MPI_Grequest_free_function)(void *extra_state);
typedef int(MPI_Grequest_cancel_function)(void *extra_state, int complete);
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;

/* ---- handle values ----------------------------------------------------- */
#define MPI_COMM_NULL ((MPI_Comm)0x04000000)
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF ((MPI_Comm)0x44000001)

#define MPI_DATATYPE_NULL ((MPI_Datatype)0x0c000000)
#define MPI_CHAR ((MPI_Datatype)0x4c000101)
#define MPI_SIGNED_CHAR ((MPI_Datatype)0x4c000118)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x4c000102)
#define MPI_BYTE ((MPI_Datatype)0x4c00010d)
#define MPI_WCHAR ((MPI_Datatype)0x4c00040e)
#define MPI_SHORT ((MPI_Datatype)0x4c000203)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)0x4c000204)
#define MPI_INT ((MPI_Datatype)0x4c000405)
#define MPI_UNSIGNED ((MPI_Datatype)0x4c000406)
#define MPI_LONG ((MPI_Datatype)0x4c000807)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)0x4c000808)
#define MPI_LONG_LONG_INT ((MPI_Datatype)0x4c000809)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4c000819)
#define MPI_FLOAT ((MPI_Datatype)0x4c00040a)
#define MPI_DOUBLE ((MPI_Datatype)0x4c00080b)
#define MPI_LONG_DOUBLE ((MPI_Datatype)0x4c00100c)
#define MPI_INT8_T ((MPI_Datatype)0x4c000137)
#define MPI_INT16_T ((MPI_Datatype)0x4c000238)
#define MPI_INT32_T ((MPI_Datatype)0x4c000439)
#define MPI_INT64_T ((MPI_Datatype)0x4c00083a)
#define MPI_UINT8_T ((MPI_Datatype)0x4c00013b)
#define MPI_UINT16_T ((MPI_Datatype)0x4c00023c)
#define MPI_UINT32_T ((MPI_Datatype)0x4c00043d)
#define MPI_UINT64_T ((MPI_Datatype)0x4c00083e)
#define MPI_C_BOOL ((MPI_Datatype)0x4c00013f)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)0x4c000840)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)0x4c001041)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002042)
#define MPI_AINT ((MPI_Datatype)0x4c000843)
#define MPI_OFFSET ((MPI_Datatype)0x4c000844)
#define MPI_COUNT ((MPI_Datatype)0x4c000845)
#define MPI_FLOAT_INT ((MPI_Datatype)0x8c000000)
#define MPI_DOUBLE_INT ((MPI_Datatype)0x8c000001)
#define MPI_LONG_INT ((MPI_Datatype)0x8c000002)
#define MPI_2INT ((MPI_Datatype)0x4c000816)
#define MPI_SHORT_INT ((MPI_Datatype)0x8c000003)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x8c000004)
#define MPI_PACKED ((MPI_Datatype)0x4c00010f)
/* Fortran's types, laid out as gfortran does (default INTEGER, REAL and
 * LOGICAL are 4 bytes; .TRUE. is 1). MPI_2REAL and friends are pairs whose
 * index has the value's type. */
#define MPI_CHARACTER ((MPI_Datatype)0x4c00011a)
#define MPI_INTEGER ((MPI_Datatype)0x4c00041b)
#define MPI_REAL ((MPI_Datatype)0x4c00041c)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)0x4c00081f)
#define MPI_COMPLEX ((MPI_Datatype)0x4c00081e)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)0x4c001022)
#define MPI_LOGICAL ((MPI_Datatype)0x4c00041d)
#define MPI_2INTEGER ((MPI_Datatype)0x4c000820)
#define MPI_2REAL ((MPI_Datatype)0x4c000821)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)0x4c001023)
#define MPI_INTEGER1 ((MPI_Datatype)0x4c00012d)
#define MPI_INTEGER2 ((MPI_Datatype)0x4c00022f)
#define MPI_INTEGER4 ((MPI_Datatype)0x4c000430)
#define MPI_INTEGER8 ((MPI_Datatype)0x4c000831)
#define MPI_REAL4 ((MPI_Datatype)0x4c000427)
#define MPI_REAL8 ((MPI_Datatype)0x4c000829)
#define MPI_COMPLEX8 ((MPI_Datatype)0x4c000828)
#define MPI_COMPLEX16 ((MPI_Datatype)0x4c00102a)
/* gfortran's REAL(16) (IEEE binary128, __float128 in C), COMPLEX(16) (two of
 * them) and INTEGER(16) (__int128). */
#define MPI_REAL16 ((MPI_Datatype)0x4c00102b)
#define MPI_COMPLEX32 ((MPI_Datatype)0x4c00202c)
#define MPI_INTEGER16 ((MPI_Datatype)0x4c001032)
/* C++'s bool and std::complex (MPI-3.0), laid out as C's _Bool and _Complex. */
#define MPI_CXX_BOOL ((MPI_Datatype)0x4c000133)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)0x4c000834)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)0x4c001035)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002036)

#define MPI_OP_NULL ((MPI_Op)0x18000000)
#define MPI_MAX ((MPI_Op)0x58000001)
#define MPI_MIN ((MPI_Op)0x58000002)
#define MPI_SUM ((MPI_Op)0x58000003)
#define MPI_PROD ((MPI_Op)0x58000004)
#define MPI_LAND ((MPI_Op)0x58000005)
#define MPI_BAND ((MPI_Op)0x58000006)
#define MPI_LOR ((MPI_Op)0x58000007)
#define MPI_BOR ((MPI_Op)0x58000008)
#define MPI_LXOR ((MPI_Op)0x58000009)
#define MPI_BXOR ((MPI_Op)0x5800000a)
#define MPI_MAXLOC ((MPI_Op)0x5800000c)
#define MPI_MINLOC ((MPI_Op)0x5800000b)
#define MPI_REPLACE ((MPI_Op)0x5800000d)
#define MPI_NO_OP ((MPI_Op)0x5800000e)

#define MPI_REQUEST_NULL ((MPI_Request)0x2c000000)

#define MPI_MESSAGE_NULL ((MPI_Message)0x2c000000)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x6c000000)

/* Bytes of the attached buffer (MPI_Buffer_attach) each buffered send takes
 * beyond its data. */
#define MPI_BSEND_OVERHEAD 96

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x54000001)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x54000003)

#define MPI_GROUP_NULL ((MPI_Group)0x08000000)
#define MPI_GROUP_EMPTY ((MPI_Group)0x48000000)

#define MPI_INFO_NULL ((MPI_Info)0x1c000000)
#define MPI_INFO_ENV ((MPI_Info)0x5c000001) /* command, argv, maxprocs, wdir, host, thread_level */

/* ---- special values ---------------------------------------------------- */
#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL (-1)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
/* MPI_Type_get_envelope's combiners (MPICH's values). */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_STRUCT 12
#define MPI_COMBINER_SUBARRAY 13
#define MPI_COMBINER_DARRAY 14
#define MPI_COMBINER_F90_REAL 15
#define MPI_COMBINER_F90_COMPLEX 16
#define MPI_COMBINER_F90_INTEGER 17
#define MPI_COMBINER_RESIZED 18
#define MPI_COMBINER_HINDEXED_BLOCK 19
/* Combiners of the MPI-1 constructors MPI-3.0 removed: never returned, but
 * MPICH still defines them and programs written for it test against them. */
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_STRUCT_INTEGER 11
/* MPI_Type_match_size's type classes (MPICH's values). */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3
/* MPI_Type_create_subarray's array orders (MPICH's values). */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
/* MPI_Type_create_darray's distributions (MPICH's values). */
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
#define MPI_KEYVAL_INVALID 0x24000000
/* The predefined attribute callbacks: the NULL ones copy nothing and do
 * nothing on delete; the DUP ones copy the attribute value. */
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
#define MPI_NULL_COPY_FN ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
int MPI_COMM_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_TYPE_DUP_FN(MPI_Datatype, int, void *, void *, void *, int *);
int MPI_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_WIN_DUP_FN(MPI_Win, int, void *, void *, void *, int *);
/* The one function MPICH's mpi.h names for all four (MPI_DUP_FN and the
 * others are casts of it there), so that its programs find it here too. */
int MPIR_Dup_fn(MPI_Comm, int, void *, void *, void *, int *);
#define MPI_COMM_TYPE_SHARED 1 /* MPI_Comm_split_type: the ranks of one node */
/* Topology kinds (MPI_Topo_test) and the dist-graph weight markers. */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
/* Variables, as in MPICH (and under its names): GCC warns
 * (-Wstringop-overread) when a constant address reaches an array parameter. */
extern int *const MPI_UNWEIGHTED;
extern int *const MPI_WEIGHTS_EMPTY;

#define MPI_STATUS_IGNORE ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_BOTTOM ((void *)0)

#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* Predefined attribute keys (MPI_Comm_get_attr on MPI_COMM_WORLD). */
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_APPNUM 0x6440000d
#define MPI_LASTUSEDCODE 0x6440000b
/* ... and on windows (MPI_Win_get_attr). */
#define MPI_WIN_BASE 0x66000001
#define MPI_WIN_SIZE 0x66000003
#define MPI_WIN_DISP_UNIT 0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL 0x66000009

/* ---- one-sided communication ------------------------------------------ */
#define MPI_WIN_NULL ((MPI_Win)0x20000000)
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
#define MPI_LOCK_EXCLUSIVE 234 /* MPICH's values */
#define MPI_LOCK_SHARED 235
/* Assertions (MPI_Win_fence, post, start, lock): accepted, used as hints only. */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

/* Thread levels. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Results of MPI_Comm_compare. */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* ---- error classes ----------------------------------------------------- */
/* MPICH's values. The classes of MPI-IO and of dynamic processes are
 * defined so that programs naming them compile; no call of this library
 * returns them. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_BAD_FILE 22
#define MPI_ERR_CONVERSION 23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE 27
#define MPI_ERR_INFO 28
#define MPI_ERR_INFO_KEY 29
#define MPI_ERR_INFO_VALUE 30
#define MPI_ERR_INFO_NOKEY 31
#define MPI_ERR_IO 32
#define MPI_ERR_NAME 33
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_NOT_SAME 35
#define MPI_ERR_NO_SPACE 36
#define MPI_ERR_NO_SUCH_FILE 37
#define MPI_ERR_PORT 38
#define MPI_ERR_QUOTA 39
#define MPI_ERR_READ_ONLY 40
#define MPI_ERR_SERVICE 41
#define MPI_ERR_SPAWN 42
#define MPI_ERR_UNSUPPORTED_DATAREP 43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN 45
#define MPI_ERR_BASE 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_KEYVAL 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_SIZE 51
#define MPI_ERR_DISP 52
#define MPI_ERR_ASSERT 53
#define MPI_ERR_RMA_RANGE 55
#define MPI_ERR_RMA_ATTACH 56
#define MPI_ERR_RMA_SHARED 57
#define MPI_ERR_RMA_FLAVOR 58
#define MPI_ERR_SESSION 75
#define MPI_ERR_PROC_ABORTED 76
#define MPI_ERR_VALUE_TOO_LARGE 77
#define MPI_ERR_LASTCODE 0x3fffffff

/* ---- the profiling interface ------------------------------------------ */
/* Every call exists twice, as the standard's profiling interface asks:
 * PMPI_x is the implementation, MPI_x a weak alias of it. A tool defines its
 * own MPI_x, which the linker prefers, and calls PMPI_x from it; the library
 * itself only ever calls PMPI_x, so a wrapper sees each user call once. */
#define SI_MPI_CALL(type, name, params) \
    type name params;                   \
    type P##name params

/* ---- environment ------------------------------------------------------- */
SI_MPI_CALL(int, MPI_Init, (int *argc, char ***argv));
SI_MPI_CALL(int, MPI_Init_thread, (int *argc, char ***argv, int required, int *provided));
SI_MPI_CALL(int, MPI_Finalize, (void));
SI_MPI_CALL(int, MPI_Initialized, (int *flag));
SI_MPI_CALL(int, MPI_Finalized, (int *flag));
SI_MPI_CALL(int, MPI_Query_thread, (int *provided));
SI_MPI_CALL(int, MPI_Is_thread_main, (int *flag));
SI_MPI_CALL(int, MPI_Abort, (MPI_Comm comm, int errorcode));
SI_MPI_CALL(int, MPI_Get_version, (int *version, int *subversion));
SI_MPI_CALL(int, MPI_Get_library_version, (char *version, int *resultlen));
SI_MPI_CALL(int, MPI_Get_processor_name, (char *name, int *resultlen));
SI_MPI_CALL(double, MPI_Wtime, (void));
SI_MPI_CALL(double, MPI_Wtick, (void));
SI_MPI_CALL(int, MPI_Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
SI_MPI_CALL(int, MPI_Free_mem, (void *base));
SI_MPI_CALL(int, MPI_Pcontrol, (const int level, ...));

/* ---- errors ------------------------------------------------------------ */
SI_MPI_CALL(int, MPI_Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
SI_MPI_CALL(int, MPI_Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler));
SI_MPI_CALL(int, MPI_Comm_call_errhandler, (MPI_Comm comm, int errorcode));
SI_MPI_CALL(int, MPI_Add_error_class, (int *errorclass));
SI_MPI_CALL(int, MPI_Add_error_code, (int errorclass, int *errorcode));
SI_MPI_CALL(int, MPI_Add_error_string, (int errorcode, const char *string));
SI_MPI_CALL(int, MPI_Comm_create_errhandler,
            (MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler));
SI_MPI_CALL(int, MPI_Errhandler_free, (MPI_Errhandler *errhandler));
SI_MPI_CALL(int, MPI_Error_string, (int errorcode, char *string, int *resultlen));
SI_MPI_CALL(int, MPI_Error_class, (int errorcode, int *errorclass));

/* ---- communicators ----------------------------------------------------- */
SI_MPI_CALL(int, MPI_Comm_rank, (MPI_Comm comm, int *rank));
SI_MPI_CALL(int, MPI_Comm_size, (MPI_Comm comm, int *size));
SI_MPI_CALL(int, MPI_Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
SI_MPI_CALL(int, MPI_Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
SI_MPI_CALL(int, MPI_Comm_free, (MPI_Comm *comm));
SI_MPI_CALL(int, MPI_Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm));
SI_MPI_CALL(int, MPI_Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Comm_idup_with_info,
            (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Comm_set_info, (MPI_Comm comm, MPI_Info info));
SI_MPI_CALL(int, MPI_Comm_get_info, (MPI_Comm comm, MPI_Info *info_used));
/* No process is spawned here: always MPI_COMM_NULL. */
SI_MPI_CALL(int, MPI_Comm_get_parent, (MPI_Comm *parent));
SI_MPI_CALL(int, MPI_Intercomm_create,
            (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
             int tag, MPI_Comm *newintercomm));
SI_MPI_CALL(int, MPI_Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm));
SI_MPI_CALL(int, MPI_Comm_test_inter, (MPI_Comm comm, int *flag));
SI_MPI_CALL(int, MPI_Comm_remote_size, (MPI_Comm comm, int *size));
SI_MPI_CALL(int, MPI_Comm_remote_group, (MPI_Comm comm, MPI_Group *group));
SI_MPI_CALL(int, MPI_Comm_split_type,
            (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm));
SI_MPI_CALL(int, MPI_Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
SI_MPI_CALL(int, MPI_Comm_create_group,
            (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));

/* ---- info objects ------------------------------------------------------ */
SI_MPI_CALL(int, MPI_Info_create, (MPI_Info *info));
SI_MPI_CALL(int, MPI_Info_free, (MPI_Info *info));
SI_MPI_CALL(int, MPI_Info_dup, (MPI_Info info, MPI_Info *newinfo));
SI_MPI_CALL(int, MPI_Info_set, (MPI_Info info, const char *key, const char *value));
SI_MPI_CALL(int, MPI_Info_get,
            (MPI_Info info, const char *key, int valuelen, char *value, int *flag));
SI_MPI_CALL(int, MPI_Info_get_valuelen,
            (MPI_Info info, const char *key, int *valuelen, int *flag));
SI_MPI_CALL(int, MPI_Info_delete, (MPI_Info info, const char *key));
SI_MPI_CALL(int, MPI_Info_get_nkeys, (MPI_Info info, int *nkeys));
SI_MPI_CALL(int, MPI_Info_get_nthkey, (MPI_Info info, int n, char *key));
/* MPI-4.0, as in MPICH 4: */
SI_MPI_CALL(int, MPI_Info_get_string,
            (MPI_Info info, const char *key, int *buflen, char *value, int *flag));
SI_MPI_CALL(int, MPI_Info_create_env, (int argc, char *argv[], MPI_Info *info));

/* ---- groups ------------------------------------------------------------ */
SI_MPI_CALL(int, MPI_Comm_group, (MPI_Comm comm, MPI_Group *group));
SI_MPI_CALL(int, MPI_Group_size, (MPI_Group group, int *size));
SI_MPI_CALL(int, MPI_Group_rank, (MPI_Group group, int *rank));
SI_MPI_CALL(int, MPI_Group_free, (MPI_Group *group));
SI_MPI_CALL(int, MPI_Group_incl,
            (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
SI_MPI_CALL(int, MPI_Group_excl,
            (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
SI_MPI_CALL(int, MPI_Group_range_incl,
            (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
SI_MPI_CALL(int, MPI_Group_range_excl,
            (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
SI_MPI_CALL(int, MPI_Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
SI_MPI_CALL(int, MPI_Group_intersection,
            (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
SI_MPI_CALL(int, MPI_Group_difference,
            (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
SI_MPI_CALL(int, MPI_Group_translate_ranks,
            (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]));
SI_MPI_CALL(int, MPI_Group_compare, (MPI_Group group1, MPI_Group group2, int *result));
SI_MPI_CALL(int, MPI_Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result));
SI_MPI_CALL(int, MPI_Comm_set_name, (MPI_Comm comm, const char *comm_name));
SI_MPI_CALL(int, MPI_Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen));

/* ---- attributes -------------------------------------------------------- */
SI_MPI_CALL(int, MPI_Comm_create_keyval,
            (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
             MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
             void *extra_state));
SI_MPI_CALL(int, MPI_Comm_free_keyval, (int *comm_keyval));
SI_MPI_CALL(int, MPI_Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val));
SI_MPI_CALL(int, MPI_Comm_get_attr,
            (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag));
SI_MPI_CALL(int, MPI_Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
SI_MPI_CALL(int, MPI_Type_get_envelope,
            (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
             int *combiner));
SI_MPI_CALL(int, MPI_Type_get_contents,
            (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
             int array_of_integers[], MPI_Aint array_of_addresses[],
             MPI_Datatype array_of_datatypes[]));
SI_MPI_CALL(int, MPI_Type_set_name, (MPI_Datatype datatype, const char *type_name));
SI_MPI_CALL(int, MPI_Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen));
SI_MPI_CALL(int, MPI_Type_create_keyval,
            (MPI_Type_copy_attr_function *type_copy_attr_fn,
             MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
             void *extra_state));
SI_MPI_CALL(int, MPI_Type_free_keyval, (int *type_keyval));
SI_MPI_CALL(int, MPI_Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val));
SI_MPI_CALL(int, MPI_Type_get_attr,
            (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag));
SI_MPI_CALL(int, MPI_Type_delete_attr, (MPI_Datatype datatype, int type_keyval));
/* MPI-1 forms, deprecated but in MPI-3.1: communicator attributes. */
SI_MPI_CALL(int, MPI_Keyval_create,
            (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
             void *extra_state));
SI_MPI_CALL(int, MPI_Keyval_free, (int *keyval));
SI_MPI_CALL(int, MPI_Attr_put, (MPI_Comm comm, int keyval, void *attribute_val));
SI_MPI_CALL(int, MPI_Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag));
SI_MPI_CALL(int, MPI_Attr_delete, (MPI_Comm comm, int keyval));

/* ---- point-to-point ---------------------------------------------------- */
SI_MPI_CALL(int, MPI_Send,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Ssend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Recv,
            (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status));
SI_MPI_CALL(int, MPI_Isend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Issend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Irecv,
            (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Sendrecv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status *status));
SI_MPI_CALL(int, MPI_Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status));
SI_MPI_CALL(int, MPI_Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status));
SI_MPI_CALL(int, MPI_Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count));
SI_MPI_CALL(int, MPI_Wait, (MPI_Request *request, MPI_Status *status));
SI_MPI_CALL(int, MPI_Waitall,
            (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]));
SI_MPI_CALL(int, MPI_Waitany,
            (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status));
SI_MPI_CALL(int, MPI_Waitsome,
            (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
             MPI_Status array_of_statuses[]));
SI_MPI_CALL(int, MPI_Test, (MPI_Request *request, int *flag, MPI_Status *status));
SI_MPI_CALL(int, MPI_Testall,
            (int count, MPI_Request array_of_requests[], int *flag,
             MPI_Status array_of_statuses[]));
SI_MPI_CALL(int, MPI_Testany,
            (int count, MPI_Request array_of_requests[], int *index, int *flag,
             MPI_Status *status));
SI_MPI_CALL(int, MPI_Request_free, (MPI_Request *request));
SI_MPI_CALL(int, MPI_Testsome,
            (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
             MPI_Status array_of_statuses[]));
SI_MPI_CALL(int, MPI_Request_get_status, (MPI_Request request, int *flag, MPI_Status *status));
SI_MPI_CALL(int, MPI_Cancel, (MPI_Request *request));
SI_MPI_CALL(int, MPI_Test_cancelled, (const MPI_Status *status, int *flag));
SI_MPI_CALL(int, MPI_Status_set_cancelled, (MPI_Status *status, int flag));
SI_MPI_CALL(int, MPI_Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count));
SI_MPI_CALL(int, MPI_Status_set_elements_x,
            (MPI_Status *status, MPI_Datatype datatype, MPI_Count count));
SI_MPI_CALL(int, MPI_Grequest_start,
            (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
             MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request));
SI_MPI_CALL(int, MPI_Grequest_complete, (MPI_Request request));
SI_MPI_CALL(int, MPI_Rsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Irsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Sendrecv_replace,
            (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Status *status));

/* Buffered sends. */
SI_MPI_CALL(int, MPI_Buffer_attach, (void *buffer, int size));
SI_MPI_CALL(int, MPI_Buffer_detach, (void *buffer_addr, int *size));
SI_MPI_CALL(int, MPI_Bsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Ibsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));

/* Persistent requests. */
SI_MPI_CALL(int, MPI_Send_init,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Ssend_init,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Rsend_init,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Bsend_init,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Recv_init,
            (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Start, (MPI_Request *request));
SI_MPI_CALL(int, MPI_Startall, (int count, MPI_Request array_of_requests[]));

/* Matched probes: the message found can only be received by MPI_Mrecv/Imrecv. */
SI_MPI_CALL(int, MPI_Mprobe,
            (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status));
SI_MPI_CALL(int, MPI_Improbe, (int source, int tag, MPI_Comm comm, int *flag,
                               MPI_Message *message, MPI_Status *status));
SI_MPI_CALL(int, MPI_Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                             MPI_Status *status));
SI_MPI_CALL(int, MPI_Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                              MPI_Request *request));

/* ---- datatypes --------------------------------------------------------- */
SI_MPI_CALL(int, MPI_Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_commit, (MPI_Datatype *datatype));
SI_MPI_CALL(int, MPI_Type_free, (MPI_Datatype *datatype));
SI_MPI_CALL(int, MPI_Type_size, (MPI_Datatype datatype, int *size));
SI_MPI_CALL(int, MPI_Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
SI_MPI_CALL(int, MPI_Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
SI_MPI_CALL(int, MPI_Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb,
                                         MPI_Count *extent));
SI_MPI_CALL(int, MPI_Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb,
                                            MPI_Aint *true_extent));
SI_MPI_CALL(int, MPI_Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb,
                                              MPI_Count *true_extent));
SI_MPI_CALL(int, MPI_Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_hvector, (int count, int blocklength, MPI_Aint stride,
                                           MPI_Datatype oldtype, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_indexed, (int count, const int array_of_blocklengths[],
                                    const int array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_hindexed, (int count, const int array_of_blocklengths[],
                                            const MPI_Aint array_of_displacements[],
                                            MPI_Datatype oldtype, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_indexed_block, (int count, int blocklength,
                                                 const int array_of_displacements[],
                                                 MPI_Datatype oldtype, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_hindexed_block, (int count, int blocklength,
                                                  const MPI_Aint array_of_displacements[],
                                                  MPI_Datatype oldtype, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_struct, (int count, const int array_of_blocklengths[],
                                          const MPI_Aint array_of_displacements[],
                                          const MPI_Datatype array_of_types[],
                                          MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_subarray, (int ndims, const int array_of_sizes[],
                                            const int array_of_subsizes[],
                                            const int array_of_starts[], int order,
                                            MPI_Datatype oldtype, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_darray,
            (int size, int rank, int ndims, const int array_of_gsizes[],
             const int array_of_distribs[], const int array_of_dargs[],
             const int array_of_psizes[], int order, MPI_Datatype oldtype,
             MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                           MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Get_elements, (const MPI_Status *status, MPI_Datatype datatype,
                                    int *count));
SI_MPI_CALL(int, MPI_Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype,
                                      MPI_Count *count));
SI_MPI_CALL(int, MPI_Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                            int outsize, int *position, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Unpack, (const void *inbuf, int insize, int *position, void *outbuf,
                              int outcount, MPI_Datatype datatype, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));
/* The portable form of MPI-3.1 section 4.3: datarep is "external32". */
SI_MPI_CALL(int, MPI_Pack_external,
            (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
             void *outbuf, MPI_Aint outsize, MPI_Aint *position));
SI_MPI_CALL(int, MPI_Unpack_external,
            (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
             void *outbuf, int outcount, MPI_Datatype datatype));
SI_MPI_CALL(int, MPI_Pack_external_size,
            (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));
/* Fortran's parameterised types (MPI-3.1 section 17.2.5), as gfortran has them. */
SI_MPI_CALL(int, MPI_Type_create_f90_real, (int p, int r, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_create_f90_integer, (int r, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_match_size, (int typeclass, int size, MPI_Datatype *datatype));
SI_MPI_CALL(int, MPI_Get_address, (const void *location, MPI_Aint *address));
/* MPI-1 calls removed by MPI-3.0, kept (as MPICH keeps them) for old programs. */
typedef MPI_Comm_errhandler_function MPI_Handler_function;
SI_MPI_CALL(int, MPI_Address, (void *location, MPI_Aint *address));
SI_MPI_CALL(int, MPI_Type_extent, (MPI_Datatype datatype, MPI_Aint *extent));
SI_MPI_CALL(int, MPI_Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement));
SI_MPI_CALL(int, MPI_Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement));
SI_MPI_CALL(int, MPI_Type_hvector, (int count, int blocklength, MPI_Aint stride,
                                    MPI_Datatype oldtype, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_hindexed,
            (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Type_struct,
            (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
             MPI_Datatype array_of_types[], MPI_Datatype *newtype));
SI_MPI_CALL(int, MPI_Errhandler_create,
            (MPI_Handler_function *function, MPI_Errhandler *errhandler));
SI_MPI_CALL(int, MPI_Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler));
SI_MPI_CALL(int, MPI_Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler));
SI_MPI_CALL(MPI_Aint, MPI_Aint_add, (MPI_Aint base, MPI_Aint disp));
SI_MPI_CALL(MPI_Aint, MPI_Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));

/* ---- collectives ------------------------------------------------------- */
SI_MPI_CALL(int, MPI_Barrier, (MPI_Comm comm));
SI_MPI_CALL(int, MPI_Bcast,
            (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Ibarrier, (MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root,
                              MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Igather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Iscatter,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Iallgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Ialltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Igatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Iscatterv,
            (const void *sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Iallgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Ialltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Ialltoallw,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Ireduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Iallreduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Ireduce_scatter,
            (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Ireduce_scatter_block,
            (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Iscan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Iexscan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Reduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Allreduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SI_MPI_CALL(int, MPI_Gather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Scatter,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Gatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm));
SI_MPI_CALL(int, MPI_Scatterv,
            (const void *sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Alltoallw,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
SI_MPI_CALL(int, MPI_Reduce_scatter,
            (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Reduce_scatter_block,
            (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SI_MPI_CALL(int, MPI_Scan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SI_MPI_CALL(int, MPI_Exscan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));

/* ---- topologies and neighbourhood collectives --------------------------- */
SI_MPI_CALL(int, MPI_Topo_test, (MPI_Comm comm, int *status));
SI_MPI_CALL(int, MPI_Dims_create, (int nnodes, int ndims, int dims[]));
SI_MPI_CALL(int, MPI_Cart_create,
            (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
             MPI_Comm *comm_cart));
SI_MPI_CALL(int, MPI_Cart_map,
            (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank));
SI_MPI_CALL(int, MPI_Cartdim_get, (MPI_Comm comm, int *ndims));
SI_MPI_CALL(int, MPI_Cart_get,
            (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]));
SI_MPI_CALL(int, MPI_Cart_rank, (MPI_Comm comm, const int coords[], int *rank));
SI_MPI_CALL(int, MPI_Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]));
SI_MPI_CALL(int, MPI_Cart_shift,
            (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest));
SI_MPI_CALL(int, MPI_Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm));
SI_MPI_CALL(int, MPI_Graph_create,
            (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
             MPI_Comm *comm_graph));
SI_MPI_CALL(int, MPI_Graph_map,
            (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank));
SI_MPI_CALL(int, MPI_Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges));
SI_MPI_CALL(int, MPI_Graph_get,
            (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
SI_MPI_CALL(int, MPI_Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors));
SI_MPI_CALL(int, MPI_Graph_neighbors,
            (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
SI_MPI_CALL(int, MPI_Dist_graph_create,
            (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
             const int destinations[], const int weights[], MPI_Info info, int reorder,
             MPI_Comm *comm_dist_graph));
SI_MPI_CALL(int, MPI_Dist_graph_create_adjacent,
            (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
             int outdegree, const int destinations[], const int destweights[], MPI_Info info,
             int reorder, MPI_Comm *comm_dist_graph));
SI_MPI_CALL(int, MPI_Dist_graph_neighbors_count,
            (MPI_Comm comm, int *indegree, int *outdegree, int *weighted));
SI_MPI_CALL(int, MPI_Dist_graph_neighbors,
            (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
             int maxoutdegree, int destinations[], int destweights[]));
SI_MPI_CALL(int, MPI_Neighbor_allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Neighbor_allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Neighbor_alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Neighbor_alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm));
SI_MPI_CALL(int, MPI_Neighbor_alltoallw,
            (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
SI_MPI_CALL(int, MPI_Ineighbor_allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Ineighbor_allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request));
SI_MPI_CALL(int, MPI_Ineighbor_alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Ineighbor_alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SI_MPI_CALL(int, MPI_Ineighbor_alltoallw,
            (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request *request));

SI_MPI_CALL(int, MPI_Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op));
SI_MPI_CALL(int, MPI_Op_free, (MPI_Op *op));
SI_MPI_CALL(int, MPI_Op_commutative, (MPI_Op op, int *commute));
SI_MPI_CALL(int, MPI_Reduce_local,
            (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));

/* ---- one-sided communication ------------------------------------------ */
SI_MPI_CALL(int, MPI_Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                                  MPI_Comm comm, MPI_Win *win));
SI_MPI_CALL(int, MPI_Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                    void *baseptr, MPI_Win *win));
SI_MPI_CALL(int, MPI_Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info,
                                           MPI_Comm comm, void *baseptr, MPI_Win *win));
SI_MPI_CALL(int, MPI_Win_shared_query,
            (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr));
SI_MPI_CALL(int, MPI_Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win));
SI_MPI_CALL(int, MPI_Win_attach, (MPI_Win win, void *base, MPI_Aint size));
SI_MPI_CALL(int, MPI_Win_detach, (MPI_Win win, const void *base));
SI_MPI_CALL(int, MPI_Win_free, (MPI_Win *win));
SI_MPI_CALL(int, MPI_Win_get_group, (MPI_Win win, MPI_Group *group));
SI_MPI_CALL(int, MPI_Win_set_info, (MPI_Win win, MPI_Info info));
SI_MPI_CALL(int, MPI_Win_get_info, (MPI_Win win, MPI_Info *info_used));
SI_MPI_CALL(int, MPI_Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag));
SI_MPI_CALL(int, MPI_Win_create_keyval,
            (MPI_Win_copy_attr_function *win_copy_attr_fn,
             MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state));
SI_MPI_CALL(int, MPI_Win_free_keyval, (int *win_keyval));
SI_MPI_CALL(int, MPI_Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val));
SI_MPI_CALL(int, MPI_Win_delete_attr, (MPI_Win win, int win_keyval));
SI_MPI_CALL(int, MPI_Win_set_name, (MPI_Win win, const char *win_name));
SI_MPI_CALL(int, MPI_Win_get_name, (MPI_Win win, char *win_name, int *resultlen));
SI_MPI_CALL(int, MPI_Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler));
SI_MPI_CALL(int, MPI_Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler));
SI_MPI_CALL(int, MPI_Win_create_errhandler,
            (MPI_Win_errhandler_function *function, MPI_Errhandler *errhandler));
SI_MPI_CALL(int, MPI_Win_call_errhandler, (MPI_Win win, int errorcode));

SI_MPI_CALL(int, MPI_Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, int target_count,
                           MPI_Datatype target_datatype, MPI_Win win));
SI_MPI_CALL(int, MPI_Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, int target_count,
                           MPI_Datatype target_datatype, MPI_Win win));
SI_MPI_CALL(int, MPI_Accumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
SI_MPI_CALL(int, MPI_Get_accumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
             MPI_Win win));
SI_MPI_CALL(int, MPI_Fetch_and_op,
            (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
             MPI_Aint target_disp, MPI_Op op, MPI_Win win));
SI_MPI_CALL(int, MPI_Compare_and_swap,
            (const void *origin_addr, const void *compare_addr, void *result_addr,
             MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win));
SI_MPI_CALL(int, MPI_Rput, (const void *origin_addr, int origin_count,
                            MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                            int target_count, MPI_Datatype target_datatype, MPI_Win win,
                            MPI_Request *request));
SI_MPI_CALL(int, MPI_Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            int target_rank, MPI_Aint target_disp, int target_count,
                            MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
SI_MPI_CALL(int, MPI_Raccumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
SI_MPI_CALL(int, MPI_Rget_accumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
             MPI_Win win, MPI_Request *request));

SI_MPI_CALL(int, MPI_Win_fence, (int assert, MPI_Win win));
SI_MPI_CALL(int, MPI_Win_post, (MPI_Group group, int assert, MPI_Win win));
SI_MPI_CALL(int, MPI_Win_start, (MPI_Group group, int assert, MPI_Win win));
SI_MPI_CALL(int, MPI_Win_complete, (MPI_Win win));
SI_MPI_CALL(int, MPI_Win_wait, (MPI_Win win));
SI_MPI_CALL(int, MPI_Win_test, (MPI_Win win, int *flag));
SI_MPI_CALL(int, MPI_Win_lock, (int lock_type, int rank, int assert, MPI_Win win));
SI_MPI_CALL(int, MPI_Win_unlock, (int rank, MPI_Win win));
SI_MPI_CALL(int, MPI_Win_lock_all, (int assert, MPI_Win win));
SI_MPI_CALL(int, MPI_Win_unlock_all, (MPI_Win win));
SI_MPI_CALL(int, MPI_Win_flush, (int rank, MPI_Win win));
SI_MPI_CALL(int, MPI_Win_flush_all, (MPI_Win win));
SI_MPI_CALL(int, MPI_Win_flush_local, (int rank, MPI_Win win));
SI_MPI_CALL(int, MPI_Win_flush_local_all, (MPI_Win win));
SI_MPI_CALL(int, MPI_Win_sync, (MPI_Win win));

/* Nonblocking epochs (seed 002; not in MPI-3.1): every call returns at once
 * with a request. An opening's request is complete at once; a closing's
 * completes when the epoch it closes has completed. Epochs still activate
 * one after the other in the order they were opened. */
#define SI_MPIX_CALL(name, params) \
    int name params;               \
    int P##name params
SI_MPIX_CALL(MPIX_Win_ifence, (int assert, MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_ipost, (MPI_Group group, int assert, MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_istart, (MPI_Group group, int assert, MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_icomplete, (MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_iwait, (MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_ilock, (int lock_type, int rank, int assert, MPI_Win win,
                              MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_iunlock, (int rank, MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_ilock_all, (int assert, MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_iunlock_all, (MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_iflush, (int rank, MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_iflush_local, (int rank, MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_iflush_all, (MPI_Win win, MPI_Request *request));
SI_MPIX_CALL(MPIX_Win_iflush_local_all, (MPI_Win win, MPI_Request *request));

/* ---- Fortran ----------------------------------------------------------- */
/* A Fortran handle is the C handle, and a Fortran status is the C status
 * seen as MPI_Fint[5] (mpif.h: MPI_STATUS_SIZE). MPI_F_STATUS(ES)_IGNORE are
 * Fortran's MPI_STATUS(ES)_IGNORE, for C code called from Fortran. */
SI_MPI_CALL(MPI_Comm, MPI_Comm_f2c, (MPI_Fint comm));
SI_MPI_CALL(MPI_Fint, MPI_Comm_c2f, (MPI_Comm comm));
SI_MPI_CALL(MPI_Datatype, MPI_Type_f2c, (MPI_Fint datatype));
SI_MPI_CALL(MPI_Fint, MPI_Type_c2f, (MPI_Datatype datatype));
SI_MPI_CALL(MPI_Group, MPI_Group_f2c, (MPI_Fint group));
SI_MPI_CALL(MPI_Fint, MPI_Group_c2f, (MPI_Group group));
SI_MPI_CALL(MPI_Request, MPI_Request_f2c, (MPI_Fint request));
SI_MPI_CALL(MPI_Fint, MPI_Request_c2f, (MPI_Request request));
SI_MPI_CALL(MPI_Op, MPI_Op_f2c, (MPI_Fint op));
SI_MPI_CALL(MPI_Fint, MPI_Op_c2f, (MPI_Op op));
SI_MPI_CALL(MPI_Info, MPI_Info_f2c, (MPI_Fint info));
SI_MPI_CALL(MPI_Fint, MPI_Info_c2f, (MPI_Info info));
SI_MPI_CALL(MPI_Errhandler, MPI_Errhandler_f2c, (MPI_Fint errhandler));
SI_MPI_CALL(MPI_Fint, MPI_Errhandler_c2f, (MPI_Errhandler errhandler));
SI_MPI_CALL(MPI_Message, MPI_Message_f2c, (MPI_Fint message));
SI_MPI_CALL(MPI_Fint, MPI_Message_c2f, (MPI_Message message));
SI_MPI_CALL(int, MPI_Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status));
SI_MPI_CALL(int, MPI_Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status));
extern MPI_Fint *MPI_F_STATUS_IGNORE;
extern MPI_Fint *MPI_F_STATUSES_IGNORE;

#ifdef __cplusplus
}
#endif

#endif /* SI_MPI_H */
