/*
 * MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size with the
 * "external32" representation (MPI 3.1 sections 4.3 and 13.5.2): the exact
 * big-endian bytes of known values of the basic types, in the standard's
 * sizes (MPI_LONG is 4 bytes, MPI_LONG_DOUBLE an IEEE binary128); positions
 * that accumulate over several calls; a vector and structs, unpacked again
 * around their holes; size queries; a buffer too small (MPI_ERR_TRUNCATE) and
 * an unknown data representation (MPI_ERR_ARG). With two or more ranks,
 * rank 0 sends what it packed as MPI_BYTE and rank 1 unpacks it.
 *
 * MPICH 4.0 differs, so this runtime alone checks: the pair types and structs
 * of mixed basic types (MPICH's size is 0, and its pack asserts), the errors
 * (MPICH accepts any datarep and packs past outsize).
 */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

/* Compares `bytes` bytes at `buf` with a string of hex digits. */
static int check_hex(const char* what, const void* buf, size_t bytes, const char* expected) {
    char got[512] = "";
    const unsigned char* b = buf;
    for (size_t i = 0; i < bytes && 2 * i + 2 < sizeof got; ++i)
        snprintf(got + 2 * i, 3, "%02x", b[i]);
    return MT_CHECK(strcmp(got, expected) == 0, "%s: packed %s, expected %s", what, got, expected);
}

/* One value of a basic type, packed at the end of what the buffer holds. */
static int pack_one(const char* what, const void* value, MPI_Datatype type, unsigned char* buf,
                    MPI_Aint size, MPI_Aint* position, const char* expected) {
    int errs = 0;
    const MPI_Aint before = *position;
    MPI_Aint bytes = -1;
    MPI_Pack_external_size("external32", 1, type, &bytes);
    errs += MT_CHECK(bytes == (MPI_Aint)strlen(expected) / 2, "%s: MPI_Pack_external_size %ld",
                     what, (long)bytes);
    MPI_Pack_external("external32", value, 1, type, buf, size, position);
    errs += MT_CHECK(*position == before + bytes, "%s: position %ld after %ld", what,
                     (long)*position, (long)before);
    errs += check_hex(what, buf + before, (size_t)(*position - before), expected);
    return errs;
}

static int basic_types(void) {
    int errs = 0;
    unsigned char buf[256];
    MPI_Aint position = 0;
    const int i = 0x01020304;
    const short s = -2;
    const long l = -2; /* 4 bytes in external32: the low ones */
    const long long ll = 0x0102030405060708LL;
    const float f = -2.0f;
    const double d = 1.0;
    const long double ld = 1.5L; /* IEEE binary128 in external32, x87 in memory */
    const char c = 'A';
    const _Bool b = 1;
    const MPI_Aint a = -1;
    const int logical = 1;           /* Fortran .TRUE. */
    const double z[2] = {1.0, -2.0}; /* a double _Complex */
    errs += pack_one("MPI_INT", &i, MPI_INT, buf, sizeof buf, &position, "01020304");
    errs += pack_one("MPI_SHORT", &s, MPI_SHORT, buf, sizeof buf, &position, "fffe");
    errs += pack_one("MPI_LONG", &l, MPI_LONG, buf, sizeof buf, &position, "fffffffe");
    errs += pack_one("MPI_LONG_LONG", &ll, MPI_LONG_LONG, buf, sizeof buf, &position,
                     "0102030405060708");
    errs += pack_one("MPI_FLOAT", &f, MPI_FLOAT, buf, sizeof buf, &position, "c0000000");
    errs += pack_one("MPI_DOUBLE", &d, MPI_DOUBLE, buf, sizeof buf, &position, "3ff0000000000000");
    errs += pack_one("MPI_LONG_DOUBLE", &ld, MPI_LONG_DOUBLE, buf, sizeof buf, &position,
                     "3fff8000000000000000000000000000");
    errs += pack_one("MPI_CHAR", &c, MPI_CHAR, buf, sizeof buf, &position, "41");
    errs += pack_one("MPI_C_BOOL", &b, MPI_C_BOOL, buf, sizeof buf, &position, "01");
    errs += pack_one("MPI_AINT", &a, MPI_AINT, buf, sizeof buf, &position, "ffffffffffffffff");
    errs += pack_one("MPI_LOGICAL", &logical, MPI_LOGICAL, buf, sizeof buf, &position, "00000001");
    errs += pack_one("MPI_C_DOUBLE_COMPLEX", z, MPI_C_DOUBLE_COMPLEX, buf, sizeof buf, &position,
                     "3ff0000000000000c000000000000000");

    /* Everything back, in the same order. */
    int i2 = 0, logical2 = 0;
    short s2 = 0;
    long l2 = 0;
    long long ll2 = 0;
    float f2 = 0;
    double d2 = 0, z2[2] = {0, 0};
    long double ld2 = 0;
    char c2 = 0;
    _Bool b2 = 0;
    MPI_Aint a2 = 0;
    const MPI_Aint size = position;
    position = 0;
    MPI_Unpack_external("external32", buf, size, &position, &i2, 1, MPI_INT);
    MPI_Unpack_external("external32", buf, size, &position, &s2, 1, MPI_SHORT);
    MPI_Unpack_external("external32", buf, size, &position, &l2, 1, MPI_LONG);
    MPI_Unpack_external("external32", buf, size, &position, &ll2, 1, MPI_LONG_LONG);
    MPI_Unpack_external("external32", buf, size, &position, &f2, 1, MPI_FLOAT);
    MPI_Unpack_external("external32", buf, size, &position, &d2, 1, MPI_DOUBLE);
    MPI_Unpack_external("external32", buf, size, &position, &ld2, 1, MPI_LONG_DOUBLE);
    MPI_Unpack_external("external32", buf, size, &position, &c2, 1, MPI_CHAR);
    MPI_Unpack_external("external32", buf, size, &position, &b2, 1, MPI_C_BOOL);
    MPI_Unpack_external("external32", buf, size, &position, &a2, 1, MPI_AINT);
    MPI_Unpack_external("external32", buf, size, &position, &logical2, 1, MPI_LOGICAL);
    MPI_Unpack_external("external32", buf, size, &position, z2, 1, MPI_C_DOUBLE_COMPLEX);
    errs += MT_EQ(position, size);
    errs += MT_EQ(i2, i);
    errs += MT_EQ(s2, s);
    errs += MT_EQ(l2, l); /* sign-extended back */
    errs += MT_EQ(ll2, ll);
    errs +=
        MT_CHECK(f2 == f && d2 == d && ld2 == ld, "floating values differ after the round trip");
    errs += MT_EQ(c2, c);
    errs += MT_EQ(b2, b);
    errs += MT_EQ(a2, a);
    errs += MT_EQ(logical2, logical);
    errs += MT_CHECK(z2[0] == z[0] && z2[1] == z[1], "complex value differs after the round trip");
    return errs;
}

/* Two items of a vector of ints: blocks of 2, stride 4 (ints 0, 1, 4, 5, 8, 9
 * of each 10); and a struct of ints with a hole. */
static int derived_types(void) {
    int errs = 0;
    MPI_Datatype vector;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vector);
    MPI_Type_commit(&vector);
    int source[20], back[20];
    for (int k = 0; k < 20; ++k) source[k] = k + 1;
    MPI_Aint bytes = -1, position = 0;
    MPI_Pack_external_size("external32", 2, vector, &bytes);
    errs += MT_EQ(bytes, 48);
    unsigned char buf[64];
    MPI_Pack_external("external32", source, 2, vector, buf, sizeof buf, &position);
    errs += MT_EQ(position, 48);
    errs += check_hex("2 x vector(3, 2, 4, MPI_INT)", buf, 48,
                      "00000001000000020000000500000006000000090000000a"
                      "0000000b0000000c0000000f000000100000001300000014");
    memset(back, 0, sizeof back);
    position = 0;
    MPI_Unpack_external("external32", buf, 48, &position, back, 2, vector);
    errs += MT_EQ(position, 48);
    for (int k = 0; k < 20; ++k) {
        const int in_type = (k % 10) % 4 < 2;
        errs += MT_CHECK(back[k] == (in_type ? source[k] : 0), "unpacked[%d] is %d", k, back[k]);
    }
    MPI_Type_free(&vector);

    /* struct {int a; int hole; int b;} with a and b only. */
    const int lengths[] = {1, 1};
    const MPI_Aint offsets[] = {0, 8};
    const MPI_Datatype ints[] = {MPI_INT, MPI_INT};
    MPI_Datatype gap;
    MPI_Type_create_struct(2, lengths, offsets, ints, &gap);
    MPI_Type_commit(&gap);
    const int record[3] = {7, 99, -1};
    int record_back[3] = {0, 0, 0};
    position = 0;
    MPI_Pack_external("external32", record, 1, gap, buf, sizeof buf, &position);
    errs += MT_EQ(position, 8);
    errs += check_hex("struct {int; hole; int}", buf, 8, "00000007ffffffff");
    position = 0;
    MPI_Unpack_external("external32", buf, 8, &position, record_back, 1, gap);
    errs +=
        MT_CHECK(record_back[0] == 7 && record_back[1] == 0 && record_back[2] == -1,
                 "struct unpacked as {%d, %d, %d}", record_back[0], record_back[1], record_back[2]);
    MPI_Type_free(&gap);
    return errs;
}

#ifdef SI_MPI
/* A struct {char; double; long} (padded to 24 bytes natively, 13 bytes in
 * external32) and a pair type. */
static int mixed_types(void) {
    int errs = 0;
    struct record {
        char c;
        double d;
        long l;
    } records[2] = {{'x', 0.5, -3}, {'y', -1.0, 1L << 40}}, back[2];
    const int lengths[] = {1, 1, 1};
    const MPI_Aint offsets[] = {offsetof(struct record, c), offsetof(struct record, d),
                                offsetof(struct record, l)};
    const MPI_Datatype members[] = {MPI_CHAR, MPI_DOUBLE, MPI_LONG};
    MPI_Datatype type;
    MPI_Type_create_struct(3, lengths, offsets, members, &type);
    MPI_Type_commit(&type);
    MPI_Aint bytes = -1, position = 0;
    MPI_Pack_external_size("external32", 2, type, &bytes);
    errs += MT_EQ(bytes, 2 * 13);
    unsigned char buf[64];
    MPI_Pack_external("external32", records, 2, type, buf, sizeof buf, &position);
    errs += MT_EQ(position, 26);
    /* 1 << 40 does not fit in 4 bytes: its low ones are zero. */
    errs += check_hex("2 x struct {char; double; long}", buf, 26,
                      "783fe0000000000000fffffffd79bff000000000000000000000");
    memset(back, 0, sizeof back);
    position = 0;
    MPI_Unpack_external("external32", buf, 26, &position, back, 2, type);
    errs += MT_CHECK(back[0].c == 'x' && back[0].d == 0.5 && back[0].l == -3 && back[1].c == 'y' &&
                         back[1].d == -1.0 && back[1].l == 0,
                     "structs unpacked differ");
    MPI_Type_free(&type);

    struct {
        double value;
        int index;
    } pair = {2.0, 7};
    position = 0;
    MPI_Pack_external_size("external32", 1, MPI_DOUBLE_INT, &bytes);
    errs += MT_EQ(bytes, 12);
    MPI_Pack_external("external32", &pair, 1, MPI_DOUBLE_INT, buf, sizeof buf, &position);
    errs += check_hex("MPI_DOUBLE_INT", buf, 12, "400000000000000000000007");
    return errs;
}

static int errors(void) {
    int errs = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int values[4] = {1, 2, 3, 4};
    int back[4] = {0, 0, 0, 0};
    unsigned char buf[16];
    MPI_Aint position = 4;
    errs += MT_CLASS(MPI_Pack_external("external32", values, 4, MPI_INT, buf, 16, &position),
                     MPI_ERR_TRUNCATE);
    errs += MT_EQ(position, 4);
    position = 0;
    errs += MT_CLASS(MPI_Unpack_external("external32", buf, 12, &position, back, 4, MPI_INT),
                     MPI_ERR_TRUNCATE);
    errs += MT_EQ(position, 0);

    MPI_Aint bytes = -1;
    const int rc = MPI_Pack_external("native", values, 1, MPI_INT, buf, 16, &position);
    errs += MT_CLASS(rc, MPI_ERR_ARG);
    char message[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, message, &length);
    errs += MT_CHECK(strstr(message, "MPI_Pack_external") && strstr(message, "datarep") &&
                         strstr(message, "\"native\"") && strstr(message, "\"external32\""),
                     "the message names neither the call, the argument nor the valid value: %s",
                     message);
    errs += MT_CLASS(MPI_Unpack_external("big-endian", buf, 16, &position, back, 1, MPI_INT),
                     MPI_ERR_ARG);
    errs += MT_CLASS(MPI_Pack_external_size("external64", 1, MPI_INT, &bytes), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}
#endif

/* Rank 0 packs ints and doubles in external32 and sends the bytes; rank 1
 * unpacks them. */
static int send_packed(void) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || rank > 1) return 0;
    int ints[5];
    double doubles[3];
    unsigned char buf[5 * 4 + 3 * 8];
    MPI_Aint position = 0;
    if (rank == 0) {
        for (int k = 0; k < 5; ++k) ints[k] = -1000 * k;
        for (int k = 0; k < 3; ++k) doubles[k] = 0.25 * k;
        MPI_Pack_external("external32", ints, 5, MPI_INT, buf, sizeof buf, &position);
        MPI_Pack_external("external32", doubles, 3, MPI_DOUBLE, buf, sizeof buf, &position);
        errs += MT_EQ(position, (MPI_Aint)sizeof buf);
        MPI_Send(buf, (int)position, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    } else {
        MPI_Status status;
        MPI_Recv(buf, sizeof buf, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &status);
        int count = -1;
        MPI_Get_count(&status, MPI_BYTE, &count);
        errs += MT_EQ(count, (int)sizeof buf);
        MPI_Unpack_external("external32", buf, count, &position, ints, 5, MPI_INT);
        MPI_Unpack_external("external32", buf, count, &position, doubles, 3, MPI_DOUBLE);
        for (int k = 0; k < 5; ++k) errs += MT_EQ(ints[k], -1000 * k);
        for (int k = 0; k < 3; ++k)
            errs += MT_CHECK(doubles[k] == 0.25 * k, "doubles[%d] is %g", k, doubles[k]);
    }
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = basic_types();
    errs += derived_types();
#ifdef SI_MPI
    errs += mixed_types();
    errs += errors();
#endif
    errs += send_packed();
    return mtest_finish(errs);
}
