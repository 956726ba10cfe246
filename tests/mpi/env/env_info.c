/*
 * MPI_Info: create, set (new and replaced keys), get with short and exact
 * buffers, get_valuelen, get_nkeys and get_nthkey in insertion order, delete,
 * dup (independent of the original), free, MPI_INFO_ENV readable, and the
 * error classes for a missing key, an over-long key and MPI_INFO_NULL;
 * MPI_Comm_dup_with_info, MPI_Comm_set_info and MPI_Comm_get_info; MPI-4's
 * MPI_Info_get_string (lengths, truncation) and MPI_Info_create_env.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Info info, copy;
    MPI_Info_create(&info);
    int nkeys = -1, flag = -1, len = -1;
    MPI_Info_get_nkeys(info, &nkeys);
    errs += MT_EQ(nkeys, 0);

    MPI_Info_set(info, "cb_nodes", "4");
    MPI_Info_set(info, "striping_unit", "1048576");
    MPI_Info_set(info, "cb_nodes", "8"); /* replaces, keeps its place */
    MPI_Info_get_nkeys(info, &nkeys);
    errs += MT_EQ(nkeys, 2);
    char key[MPI_MAX_INFO_KEY];
    MPI_Info_get_nthkey(info, 0, key);
    errs += MT_CHECK(strcmp(key, "cb_nodes") == 0, "key 0 is %s", key);
    MPI_Info_get_nthkey(info, 1, key);
    errs += MT_CHECK(strcmp(key, "striping_unit") == 0, "key 1 is %s", key);

    char value[MPI_MAX_INFO_VAL];
    MPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL - 1, value, &flag);
    errs += MT_CHECK(flag && strcmp(value, "8") == 0, "cb_nodes: flag %d value %s", flag, value);
    MPI_Info_get_valuelen(info, "striping_unit", &len, &flag);
    errs += MT_CHECK(flag && len == 7, "striping_unit: flag %d length %d", flag, len);
#ifdef SI_MPI
    /* The standard truncates a value longer than valuelen; MPICH 4.0.2 fails. */
    MPI_Info_get(info, "striping_unit", 3, value, &flag);
    errs += MT_CHECK(flag && strcmp(value, "104") == 0, "truncated value %s", value);
#endif
    MPI_Info_get(info, "absent", MPI_MAX_INFO_VAL - 1, value, &flag);
    errs += MT_EQ(flag, 0);
    MPI_Info_get_valuelen(info, "absent", &len, &flag);
    errs += MT_EQ(flag, 0);

    MPI_Info_dup(info, &copy);
    MPI_Info_delete(info, "cb_nodes");
    MPI_Info_get_nkeys(info, &nkeys);
    errs += MT_EQ(nkeys, 1);
    MPI_Info_get_nkeys(copy, &nkeys);
    errs += MT_EQ(nkeys, 2);
    MPI_Info_get(copy, "cb_nodes", MPI_MAX_INFO_VAL - 1, value, &flag);
    errs += MT_CHECK(flag && strcmp(value, "8") == 0, "dup lost cb_nodes");

    MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys);
    errs += MT_CHECK(nkeys >= 0, "MPI_INFO_ENV has %d keys", nkeys);

    /* MPI_Info_get_string: *buflen in = room, out = the value's length + 1. */
    int buflen = 0;
    char tiny[4] = "xyz";
    MPI_Info_get_string(copy, "striping_unit", &buflen, tiny, &flag);
    errs += MT_CHECK(flag && buflen == 8 && strcmp(tiny, "xyz") == 0,
                     "get_string, no room: flag %d buflen %d value %s", flag, buflen, tiny);
    buflen = 4;
    MPI_Info_get_string(copy, "striping_unit", &buflen, tiny, &flag);
    errs += MT_CHECK(flag && buflen == 8 && strcmp(tiny, "104") == 0,
                     "get_string, short: buflen %d value %s", buflen, tiny);
    buflen = MPI_MAX_INFO_VAL;
    MPI_Info_get_string(copy, "striping_unit", &buflen, value, &flag);
    errs += MT_CHECK(flag && buflen == 8 && strcmp(value, "1048576") == 0,
                     "get_string: buflen %d value %s", buflen, value);
    buflen = 5;
    MPI_Info_get_string(copy, "absent", &buflen, value, &flag);
    errs += MT_CHECK(flag == 0 && buflen == 5, "get_string, absent: flag %d buflen %d", flag, buflen);

    /* MPI_Info_create_env: a new object, freeable, with this runtime's keys. */
    MPI_Info env;
    MPI_Info_create_env(argc, argv, &env);
#ifdef SI_MPI
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Info_get(env, "maxprocs", MPI_MAX_INFO_VAL - 1, value, &flag);
    errs += MT_CHECK(flag && atoi(value) == world, "create_env maxprocs: flag %d %s", flag, value);
    MPI_Info_get(env, "command", MPI_MAX_INFO_VAL - 1, value, &flag);
    errs += MT_CHECK(flag && strcmp(value, argv[0]) == 0, "create_env command: %s", value);
    int level;
    MPI_Query_thread(&level);
    const char* level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                 "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL - 1, value, &flag);
    errs += MT_CHECK(flag && level >= 0 && level <= 3 && strcmp(value, level_names[level]) == 0,
                     "thread_level: %s (MPI_Query_thread %d)", value, level);
    MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL - 1, value, &flag);
    errs += MT_CHECK(flag && strstr(value, "env_info") != NULL, "MPI_INFO_ENV command: %s", value);
#endif
    MPI_Info_free(&env);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += MT_CLASS(MPI_Info_delete(info, "cb_nodes"), MPI_ERR_INFO_NOKEY);
    char long_key[MPI_MAX_INFO_KEY + 8];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    errs += MT_CLASS(MPI_Info_set(info, long_key, "1"), MPI_ERR_INFO_KEY);
    errs += MT_CLASS(MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys), MPI_ERR_ARG); /* as MPICH */
    errs += MT_CLASS(MPI_Info_get_nthkey(info, 5, key), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* Communicator hints: accepted; none is used, so none is reported. */
    MPI_Comm with_info;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, copy, &with_info);
    MPI_Comm_set_info(with_info, copy);
    MPI_Info used;
    MPI_Comm_get_info(with_info, &used);
    MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL - 1, value, &flag);
    errs += MT_EQ(flag, 0);
    MPI_Info_free(&used);
    int wsize, dsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_size(with_info, &dsize);
    errs += MT_EQ(dsize, wsize);
    MPI_Comm_free(&with_info);
    /* MPI_INFO_NULL is a valid hints argument; MPI_Alloc_mem takes hints too. */
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &with_info);
    MPI_Comm_free(&with_info);
    void* memory = NULL;
    MPI_Alloc_mem(64, copy, &memory);
    errs += MT_CHECK(memory != NULL, "MPI_Alloc_mem with hints gave NULL");
    MPI_Free_mem(memory);

    MPI_Info_free(&copy);
    MPI_Info_free(&info);
    errs += MT_EQ(info, MPI_INFO_NULL);
    return mtest_finish(errs);
}
