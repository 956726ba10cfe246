/*
 * Attribute caching: communicator and datatype keys with copy and delete
 * callbacks (user ones, MPI_COMM_DUP_FN / MPI_TYPE_DUP_FN and the NULL
 * ones) through dup and free, replacing and deleting a value, a key freed
 * while its attribute lives on, the MPI-1 forms (MPI_Keyval_create,
 * MPI_Attr_put/get/delete), the predefined attributes, error classes, and the
 * deletion of MPI_COMM_SELF's attributes at the start of MPI_Finalize; a
 * freed key whose handle must not be reused while an attribute holds it, and
 * callbacks that fail (the attribute stays; a failed copy means no duplicate).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mtest.h"

static int g_deleted;      /* delete callbacks run */
static int g_self_deleted; /* ... of the MPI_COMM_SELF attribute, before finalization */

static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
    ++g_deleted;
    ++*(int*)extra;
    return MPI_SUCCESS;
}

/* The same for datatypes: handle types differ where handles are pointers
 * (the MPI standard ABI). */
static int count_type_delete(MPI_Datatype type, int keyval, void* value, void* extra) {
    ++g_deleted;
    ++*(int*)extra;
    return MPI_SUCCESS;
}

/* Copies value + 1, so a copy is told from the original. */
static int copy_plus_one(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
    *(void**)out = (char*)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_refused(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_at_finalize(MPI_Comm comm, int keyval, void* value, void* extra) {
    int finalized = 1;
    MPI_Finalized(&finalized);
    if (comm == MPI_COMM_SELF && !finalized) ++g_self_deleted;
    return MPI_SUCCESS;
}

static void* get(MPI_Comm comm, int keyval, int* flag) {
    void* value = NULL;
    MPI_Comm_get_attr(comm, keyval, &value, flag);
    return value;
}

static int comm_attributes(void) {
    int errs = 0, flag, deletes = 0;
    char base[4];
    int plus, dup, none;
    MPI_Comm_create_keyval(copy_plus_one, count_delete, &plus, &deletes);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &dup, &deletes);
    MPI_Comm_create_keyval(copy_refused, MPI_COMM_NULL_DELETE_FN, &none, NULL);

    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_attr(a, plus, base);
    MPI_Comm_set_attr(a, dup, base + 1);
    MPI_Comm_set_attr(a, none, base + 2);
    errs += MT_CHECK(get(a, plus, &flag) == base && flag, "plus on a");
    MPI_Comm_dup(a, &b);
    errs += MT_CHECK(get(b, plus, &flag) == base + 1 && flag, "plus copied as value + 1");
    errs += MT_CHECK(get(b, dup, &flag) == base + 1 && flag, "dup copied as is");
    get(b, none, &flag);
    errs += MT_EQ(flag, 0);

    /* Replacing a value deletes the old one. */
    MPI_Comm_set_attr(b, dup, base + 3);
    errs += MT_EQ(deletes, 1);
    errs += MT_CHECK(get(b, dup, &flag) == base + 3, "replaced value");
    MPI_Comm_delete_attr(b, dup);
    errs += MT_EQ(deletes, 2);
    get(b, dup, &flag);
    errs += MT_EQ(flag, 0);

    /* A freed key's attribute is still deleted with its object. */
    MPI_Comm_free_keyval(&plus);
    errs += MT_EQ(plus, MPI_KEYVAL_INVALID);
    MPI_Comm_free(&b); /* plus */
    errs += MT_EQ(deletes, 3);
    MPI_Comm_free(&a); /* plus and dup */
    errs += MT_EQ(deletes, 5);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Nothing to delete: no error (as MPICH), and no callback. */
    errs += MT_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, dup), MPI_SUCCESS);
    errs += MT_EQ(deletes, 5);
    int type_key;
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &type_key, NULL);
    errs += MT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, type_key, NULL), MPI_ERR_KEYVAL);
#ifdef SI_MPI
    errs += MT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free_keyval(&type_key);
    MPI_Comm_free_keyval(&dup);
    MPI_Comm_free_keyval(&none);
    return errs;
}

static int type_attributes(void) {
    int errs = 0, flag, deletes = 0, key;
    char base[2];
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, count_type_delete, &key, &deletes);
    MPI_Datatype t, u;
    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Type_set_attr(t, key, base);
    MPI_Type_dup(t, &u);
    void* value = NULL;
    MPI_Type_get_attr(u, key, &value, &flag);
    errs += MT_CHECK(flag && value == base, "type attribute copied");
    MPI_Type_free(&t);
    MPI_Type_free(&u);
    errs += MT_EQ(deletes, 2);
    /* Predefined types carry attributes too. */
    MPI_Type_set_attr(MPI_INT, key, base + 1);
    MPI_Type_get_attr(MPI_INT, key, &value, &flag);
    errs += MT_CHECK(flag && value == base + 1, "attribute on MPI_INT");
    MPI_Type_delete_attr(MPI_INT, key);
    errs += MT_EQ(deletes, 3);
    MPI_Type_free_keyval(&key);
    return errs;
}

static int mpi1_forms(void) {
    int errs = 0, flag, key, deletes = 0;
    char base[1];
    MPI_Keyval_create(MPI_DUP_FN, count_delete, &key, &deletes);
    MPI_Attr_put(MPI_COMM_WORLD, key, base);
    void* value = NULL;
    MPI_Attr_get(MPI_COMM_WORLD, key, &value, &flag);
    errs += MT_CHECK(flag && value == base, "MPI_Attr_get");
    MPI_Attr_delete(MPI_COMM_WORLD, key);
    errs += MT_EQ(deletes, 1);
    MPI_Keyval_free(&key);
    return errs;
}

static int g_refuse; /* the failing callbacks below fail while set */
static int copy_failing(MPI_Datatype t, int k, void* extra, void* in, void* out, int* flag) {
    *(void**)out = in;
    *flag = 1;
    return g_refuse ? MPI_ERR_OTHER : MPI_SUCCESS;
}
static int delete_failing(MPI_Datatype t, int k, void* value, void* extra) {
    ++*(int*)extra;
    return g_refuse ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int freed_keys_and_failures(void) {
    int errs = 0, flag, deletes = 0;
    char base[1];
    /* A key freed while in use: new keys must not take its handle. */
    int key, saved, others[8];
    MPI_Comm_create_keyval(copy_plus_one, count_delete, &key, &deletes);
    saved = key;
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, base);
    MPI_Comm_free_keyval(&key);
    errs += MT_EQ(key, MPI_KEYVAL_INVALID);
    for (int i = 0; i < 8; ++i) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &others[i], NULL);
        errs += MT_CHECK(others[i] != saved, "a new key took the handle of a key in use");
    }
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    errs += MT_CHECK(get(dup, saved, &flag) == base + 1 && flag, "freed key's copy callback");
    MPI_Comm_free(&dup);
    errs += MT_EQ(deletes, 1);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, saved);
    errs += MT_EQ(deletes, 2);
    for (int i = 0; i < 8; ++i) MPI_Comm_free_keyval(&others[i]);

    /* Failing callbacks, with errors returned. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype type, copy = MPI_INT;
    MPI_Type_dup(MPI_DOUBLE, &type);
    int tkey, tdeletes = 0;
    MPI_Type_create_keyval(copy_failing, delete_failing, &tkey, &tdeletes);
    MPI_Type_set_attr(type, tkey, base);
    g_refuse = 1;
    errs += MT_CLASS(MPI_Type_delete_attr(type, tkey), MPI_ERR_OTHER);
    void* value = NULL;
    MPI_Type_get_attr(type, tkey, &value, &flag);
    errs += MT_CHECK(flag && value == base, "a failed delete removed the attribute");
    errs += MT_CLASS(MPI_Type_dup(type, &copy), MPI_ERR_OTHER);
    errs += MT_EQ(copy, MPI_DATATYPE_NULL);
    g_refuse = 0;
    MPI_Type_free(&type);
    errs += MT_EQ(tdeletes, 2);
    MPI_Type_free_keyval(&tkey);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

static int predefined(void) {
    int errs = 0, flag, size;
    int* value = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
    errs += MT_CHECK(flag && *value >= 32767, "MPI_TAG_UB");
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag);
    errs += MT_CHECK(!flag || *value >= size, "MPI_UNIVERSE_SIZE %d", flag ? *value : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &value, &flag);
    errs += MT_CHECK(!flag || *value == 0, "MPI_APPNUM");
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = comm_attributes();
    errs += type_attributes();
    errs += mpi1_forms();
    errs += predefined();
    errs += freed_keys_and_failures();
    int self_key;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_at_finalize, &self_key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL);
    const int rc = mtest_finish(errs);
    if (g_self_deleted != 1) {
        fprintf(stderr, "MPI_COMM_SELF's attribute was deleted %d times during MPI_Finalize\n",
                g_self_deleted);
        return 1;
    }
    return rc;
}
