/*
 * Program-defined errors and object names: MPI_Add_error_class/code/string,
 * MPI_Error_class and MPI_Error_string on them, the MPI_LASTUSEDCODE
 * attribute, MPI_Comm_call_errhandler reaching a user handler with the code,
 * and MPI_Type_set_name/get_name (predefined names, aliases and C++'s types,
 * the empty default, renaming a predefined type).
 */
#include <string.h>

#include "mtest.h"

static int g_handled_code = -1;
static int g_handled_calls = 0;

static void handler(MPI_Comm* comm, int* code, ...) {
    g_handled_code = *code;
    ++g_handled_calls;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    int cls, code, got;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    errs += MT_CHECK(cls > MPI_ERR_LASTCODE || cls > MPI_ERR_INFO_NOKEY, "class %d", cls);
    errs += MT_CHECK(code != cls, "code %d equals its class", code);
    MPI_Error_class(code, &got);
    errs += MT_EQ(got, cls);
    MPI_Error_class(cls, &got);
    errs += MT_EQ(got, cls);
    MPI_Add_error_string(cls, "the solver diverged");
    MPI_Add_error_string(code, "the solver diverged at step 3");
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(code, text, &len);
    errs += MT_CHECK(strcmp(text, "the solver diverged at step 3") == 0, "code text '%s'", text);
    MPI_Error_string(cls, text, &len);
    errs += MT_CHECK(strcmp(text, "the solver diverged") == 0, "class text '%s'", text);

    int* last = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    errs += MT_CHECK(flag && *last >= cls, "MPI_LASTUSEDCODE %d < class %d", flag ? *last : -1,
                     cls);
#ifdef SI_MPI
    /* MPICH 4.0.2's value covers the classes only. */
    errs += MT_CHECK(*last >= code, "MPI_LASTUSEDCODE %d < code %d", *last, code);
#endif

    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, eh);
    errs += MT_EQ(MPI_Comm_call_errhandler(dup, code), MPI_SUCCESS);
    errs += MT_EQ(g_handled_calls, 1);
    errs += MT_EQ(g_handled_code, code);
    MPI_Comm_free(&dup);
    MPI_Errhandler_free(&eh);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#ifdef SI_MPI
    /* MPICH accepts new texts for its own classes. */
    errs += MT_CLASS(MPI_Add_error_string(MPI_ERR_COUNT, "mine"), MPI_ERR_ARG);
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    char name[MPI_MAX_OBJECT_NAME];
    MPI_Type_get_name(MPI_INT, name, &len);
    errs += MT_CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "MPI_INT is named '%s'", name);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_get_name(pair, name, &len);
    errs += MT_CHECK(len == 0 && name[0] == '\0', "unnamed type is named '%s'", name);
    MPI_Type_set_name(pair, "complex_pair");
    MPI_Type_get_name(pair, name, &len);
    errs += MT_CHECK(strcmp(name, "complex_pair") == 0, "named type is named '%s'", name);
    MPI_Type_free(&pair);
    /* Aliases answer with MPICH's names; C++'s types exist (MPI-3.0). */
    MPI_Type_get_name(MPI_LONG_LONG, name, &len);
    errs += MT_CHECK(strcmp(name, "MPI_LONG_LONG_INT") == 0 || strcmp(name, "MPI_LONG_LONG") == 0,
                     "MPI_LONG_LONG is named '%s'", name);
    MPI_Type_get_name(MPI_CXX_DOUBLE_COMPLEX, name, &len);
    errs += MT_CHECK(strcmp(name, "MPI_CXX_DOUBLE_COMPLEX") == 0, "MPI_CXX_DOUBLE_COMPLEX is named '%s'",
                     name);
    int size = 0;
    MPI_Type_size(MPI_CXX_BOOL, &size);
    errs += MT_EQ(size, 1);
    MPI_Type_size(MPI_CXX_LONG_DOUBLE_COMPLEX, &size);
    errs += MT_EQ(size, (int)(2 * sizeof(long double)));
    /* A predefined type may be renamed, as in MPICH. */
    errs += MT_CLASS(MPI_Type_set_name(MPI_FLOAT, "single"), MPI_SUCCESS);
    MPI_Type_get_name(MPI_FLOAT, name, &len);
    errs += MT_CHECK(strcmp(name, "single") == 0, "renamed MPI_FLOAT is named '%s'", name);
    MPI_Type_set_name(MPI_FLOAT, "MPI_FLOAT");
    return mtest_finish(errs);
}
