// The external32 representation (datatype.hpp): a codec per predefined type,
// written as the standard's table of sizes (MPI-3.1 table 13.2), and the walk
// that applies the codecs along a type's signature. A non-contiguous type is
// packed natively first (pack.cpp), a bounded chunk of items at a time.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "datatype/datatype.hpp"

namespace si::datatype {

namespace {

// Native packed bytes converted at a time for a non-contiguous type.
constexpr std::size_t kChunkBytes = std::size_t{64} * 1024;

// The unsigned integer of N bytes, which holds the bits of any N-byte element.
template <std::size_t N>
using unsigned_of = std::conditional_t<
    N == 1, std::uint8_t,
    std::conditional_t<N == 2, std::uint16_t,
                       std::conditional_t<N == 4, std::uint32_t,
                                          std::conditional_t<N == 8, std::uint64_t,
                                                             unsigned __int128>>>>;

// `bits` in big-endian byte order, or back: its own inverse.
template <typename U>
U big_endian(U bits) {
    if constexpr (std::endian::native == std::endian::big || sizeof(U) == 1)
        return bits;
    else if constexpr (sizeof(U) == 2)
        return __builtin_bswap16(bits);
    else if constexpr (sizeof(U) == 4)
        return __builtin_bswap32(bits);
    else if constexpr (sizeof(U) == 8)
        return __builtin_bswap64(bits);
    else  // two halves swapped: clang 14 has no __builtin_bswap128
        return static_cast<U>(__builtin_bswap64(static_cast<std::uint64_t>(bits))) << 64 |
               __builtin_bswap64(static_cast<std::uint64_t>(bits >> 64));
}

// An element of C type T that is N bytes in external32. A narrower integer
// keeps its less significant bytes and is sign- or zero-extended back, as
// the standard advises (MPI_LONG: 8 bytes here, 4 there); any other element
// is its own bits in big-endian order.
template <typename T, std::size_t N>
struct Scalar {
    static_assert(N <= sizeof(T));
    static constexpr std::size_t kNative = sizeof(T);
    static constexpr std::size_t kExternal = N;

    static void encode(const std::byte* native, std::byte* external) {
        unsigned_of<sizeof(T)> bits;
        std::memcpy(&bits, native, sizeof bits);
        const unsigned_of<N> value = big_endian(static_cast<unsigned_of<N>>(bits));
        std::memcpy(external, &value, N);
    }
    static void decode(const std::byte* external, std::byte* native) {
        unsigned_of<N> value;
        std::memcpy(&value, external, N);
        value = big_endian(value);
        unsigned_of<sizeof(T)> bits = value;
        if constexpr (N < sizeof(T) && std::is_signed_v<T>)
            bits = static_cast<unsigned_of<sizeof(T)>>(
                static_cast<T>(static_cast<std::make_signed_t<unsigned_of<N>>>(value)));
        std::memcpy(native, &bits, sizeof bits);
    }
};

// C's long double (x87's 80-bit format on x86-64, in 16 bytes) is an IEEE
// binary128 in external32: widened exactly on the way out, rounded back.
struct LongDouble {
    static constexpr std::size_t kNative = sizeof(long double);
    static constexpr std::size_t kExternal = 16;

    static void encode(const std::byte* native, std::byte* external) {
        long double value;
        std::memcpy(&value, native, sizeof value);
        const Real16 wide = value;
        Scalar<Real16, 16>::encode(reinterpret_cast<const std::byte*>(&wide), external);
    }
    static void decode(const std::byte* external, std::byte* native) {
        Real16 wide;
        Scalar<Real16, 16>::decode(external, reinterpret_cast<std::byte*>(&wide));
        const auto value = static_cast<long double>(wide);
        std::memcpy(native, &value, sizeof value);
    }
};

// The real part, then the imaginary one.
template <typename Part>
struct Complex {
    static constexpr std::size_t kNative = 2 * Part::kNative;
    static constexpr std::size_t kExternal = 2 * Part::kExternal;

    static void encode(const std::byte* native, std::byte* external) {
        Part::encode(native, external);
        Part::encode(native + Part::kNative, external + Part::kExternal);
    }
    static void decode(const std::byte* external, std::byte* native) {
        Part::decode(external, native);
        Part::decode(external + Part::kExternal, native + Part::kNative);
    }
};

// A value-index pair type: natively packed as its value then its index
// (datatype.hpp), as in external32, where each part has its standard size.
template <typename Value, typename Index>
struct Pair {
    static constexpr std::size_t kNative = Value::kNative + Index::kNative;
    static constexpr std::size_t kExternal = Value::kExternal + Index::kExternal;

    static void encode(const std::byte* native, std::byte* external) {
        Value::encode(native, external);
        Index::encode(native + Value::kNative, external + Value::kExternal);
    }
    static void decode(const std::byte* external, std::byte* native) {
        Value::decode(external, native);
        Index::decode(external + Value::kExternal, native + Value::kNative);
    }
};

struct Codec {
    std::size_t native = 0;    // bytes of one element packed natively
    std::size_t external = 0;  // bytes of one element in external32
    void (*encode)(const std::byte* native, std::byte* external, std::size_t n) = nullptr;
    void (*decode)(const std::byte* external, std::byte* native, std::size_t n) = nullptr;
};

template <typename Element>
void encode_all(const std::byte* native, std::byte* external, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        Element::encode(native + i * Element::kNative, external + i * Element::kExternal);
}

template <typename Element>
void decode_all(const std::byte* external, std::byte* native, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        Element::decode(external + i * Element::kExternal, native + i * Element::kNative);
}

template <typename Element>
constexpr Codec codec() {
    static_assert(Element::kExternal <= Element::kNative, "external32 never grows a type");
    return Codec{Element::kNative, Element::kExternal, &encode_all<Element>, &decode_all<Element>};
}

template <typename T, std::size_t N>
constexpr Codec scalar() {
    return codec<Scalar<T, N>>();
}

template <typename T, std::size_t N>
constexpr Codec complex() {
    return codec<Complex<Scalar<T, N>>>();
}

template <typename V, std::size_t NV, typename I = int, std::size_t NI = 4>
constexpr Codec pair() {
    return codec<Pair<Scalar<V, NV>, Scalar<I, NI>>>();
}

// [type index]; the sizes are the standard's, whatever the C type's.
constexpr std::array<Codec, kPredefinedCount> make_codecs() {
    std::array<Codec, kPredefinedCount> t{};
    auto set = [&t](MPI_Datatype type, const Codec& codec) { t[predefined_index(type)] = codec; };
    set(MPI_CHAR, scalar<char, 1>());
    set(MPI_SIGNED_CHAR, scalar<signed char, 1>());
    set(MPI_UNSIGNED_CHAR, scalar<unsigned char, 1>());
    set(MPI_BYTE, scalar<unsigned char, 1>());
    set(MPI_PACKED, scalar<unsigned char, 1>());
    // A code unit, zero-extended back like the unsigned char16_t it fits in.
    set(MPI_WCHAR, scalar<std::make_unsigned_t<wchar_t>, 2>());
    set(MPI_SHORT, scalar<short, 2>());
    set(MPI_UNSIGNED_SHORT, scalar<unsigned short, 2>());
    set(MPI_INT, scalar<int, 4>());
    set(MPI_UNSIGNED, scalar<unsigned, 4>());
    set(MPI_LONG, scalar<long, 4>());
    set(MPI_UNSIGNED_LONG, scalar<unsigned long, 4>());
    set(MPI_LONG_LONG, scalar<long long, 8>());
    set(MPI_UNSIGNED_LONG_LONG, scalar<unsigned long long, 8>());
    set(MPI_FLOAT, scalar<float, 4>());
    set(MPI_DOUBLE, scalar<double, 8>());
    set(MPI_LONG_DOUBLE, codec<LongDouble>());
    set(MPI_C_BOOL, scalar<bool, 1>());
    set(MPI_INT8_T, scalar<std::int8_t, 1>());
    set(MPI_INT16_T, scalar<std::int16_t, 2>());
    set(MPI_INT32_T, scalar<std::int32_t, 4>());
    set(MPI_INT64_T, scalar<std::int64_t, 8>());
    set(MPI_UINT8_T, scalar<std::uint8_t, 1>());
    set(MPI_UINT16_T, scalar<std::uint16_t, 2>());
    set(MPI_UINT32_T, scalar<std::uint32_t, 4>());
    set(MPI_UINT64_T, scalar<std::uint64_t, 8>());
    set(MPI_AINT, scalar<MPI_Aint, 8>());
    set(MPI_OFFSET, scalar<MPI_Offset, 8>());
    set(MPI_COUNT, scalar<MPI_Count, 8>());
    set(MPI_C_FLOAT_COMPLEX, complex<float, 4>());
    set(MPI_C_DOUBLE_COMPLEX, complex<double, 8>());
    set(MPI_C_LONG_DOUBLE_COMPLEX, codec<Complex<LongDouble>>());
    set(MPI_FLOAT_INT, pair<float, 4>());
    set(MPI_DOUBLE_INT, pair<double, 8>());
    set(MPI_LONG_INT, pair<long, 4>());
    set(MPI_2INT, pair<int, 4>());
    set(MPI_SHORT_INT, pair<short, 2>());
    set(MPI_LONG_DOUBLE_INT, codec<Pair<LongDouble, Scalar<int, 4>>>());
    set(MPI_CHARACTER, scalar<char, 1>());
    set(MPI_INTEGER, scalar<std::int32_t, 4>());
    set(MPI_REAL, scalar<float, 4>());
    set(MPI_DOUBLE_PRECISION, scalar<double, 8>());
    set(MPI_COMPLEX, complex<float, 4>());
    set(MPI_DOUBLE_COMPLEX, complex<double, 8>());
    set(MPI_LOGICAL, scalar<std::int32_t, 4>());
    set(MPI_2INTEGER, pair<std::int32_t, 4, std::int32_t, 4>());
    set(MPI_2REAL, pair<float, 4, float, 4>());
    set(MPI_2DOUBLE_PRECISION, pair<double, 8, double, 8>());
    set(MPI_INTEGER1, scalar<std::int8_t, 1>());
    set(MPI_INTEGER2, scalar<std::int16_t, 2>());
    set(MPI_INTEGER4, scalar<std::int32_t, 4>());
    set(MPI_INTEGER8, scalar<std::int64_t, 8>());
    set(MPI_INTEGER16, scalar<Integer16, 16>());
    set(MPI_REAL4, scalar<float, 4>());
    set(MPI_REAL8, scalar<double, 8>());
    set(MPI_REAL16, scalar<Real16, 16>());
    set(MPI_COMPLEX8, complex<float, 4>());
    set(MPI_COMPLEX16, complex<double, 8>());
    set(MPI_COMPLEX32, complex<Real16, 16>());
    // C++'s types are C's.
    set(MPI_CXX_BOOL, t[predefined_index(MPI_C_BOOL)]);
    set(MPI_CXX_FLOAT_COMPLEX, t[predefined_index(MPI_C_FLOAT_COMPLEX)]);
    set(MPI_CXX_DOUBLE_COMPLEX, t[predefined_index(MPI_C_DOUBLE_COMPLEX)]);
    set(MPI_CXX_LONG_DOUBLE_COMPLEX, t[predefined_index(MPI_C_LONG_DOUBLE_COMPLEX)]);
    return t;
}

// The unit tests check that no predefined type is missing (SizesAreTheStandardTable)
// and that each codec's native size is the type's (EveryPredefinedTypeRoundTripsInAStruct).
constexpr std::array<Codec, kPredefinedCount> kCodecs = make_codecs();

const Codec& codec_of(MPI_Datatype basic) {
    return kCodecs[predefined_index(basic)];
}

// Calls convert(basic, n) for each run of n units of one basic type in
// `count` items, in type-map order.
template <typename Convert>
void for_each_run(const Signature& signature, std::size_t count, Convert& convert) {
    for (std::size_t i = 0; i < count; ++i)
        for (const Signature::Run& run : signature.runs) {
            if (run.nested)
                for_each_run(*run.nested, run.count, convert);
            else
                convert(run.basic, run.count);
        }
}

template <typename Convert>
void for_each_run(const Type& type, std::size_t count, Convert& convert) {
    if (type.signature)
        for_each_run(*type.signature, count, convert);
    else if (type.elements > 0)
        convert(type.base, count * type.elements);
}

std::size_t external32_of(const Signature& signature) {
    std::size_t bytes = 0;
    for (const Signature::Run& run : signature.runs)
        bytes +=
            run.count * (run.nested ? external32_of(*run.nested) : codec_of(run.basic).external);
    return bytes;
}

// `count` items packed natively at `native` to external32 at `external`.
void encode(const Type& type, std::size_t count, const std::byte* native, std::byte* external) {
    auto convert = [&](MPI_Datatype basic, std::size_t n) {
        const Codec& codec = codec_of(basic);
        codec.encode(native, external, n);
        native += n * codec.native;
        external += n * codec.external;
    };
    for_each_run(type, count, convert);
}

void decode(const Type& type, std::size_t count, const std::byte* external, std::byte* native) {
    auto convert = [&](MPI_Datatype basic, std::size_t n) {
        const Codec& codec = codec_of(basic);
        codec.decode(external, native, n);
        external += n * codec.external;
        native += n * codec.native;
    };
    for_each_run(type, count, convert);
}

// Items of a non-contiguous type converted at a time.
std::size_t chunk_items(const Type& type, std::size_t count) {
    return std::min(count, std::max<std::size_t>(1, kChunkBytes / type.packed));
}

}  // namespace

std::size_t external32_bytes(const Type& type, std::size_t count) {
    if (type.signature) return count * external32_of(*type.signature);
    if (type.elements == 0) return 0;
    return count * type.elements * codec_of(type.base).external;
}

void pack_external32(const Type& type, const void* buffer, std::size_t count, void* out) {
    auto* external = static_cast<std::byte*>(out);
    if (count == 0 || type.packed == 0) return;
    if (type.contiguous) {
        encode(type, count, type.data(buffer), external);
        return;
    }
    const std::size_t chunk = chunk_items(type, count);
    const std::size_t item_bytes = external32_bytes(type, 1);
    std::vector<std::byte> native(chunk * type.packed);
    for (std::size_t done = 0; done < count; done += chunk) {
        const std::size_t n = std::min(chunk, count - done);
        pack(type, at(buffer, static_cast<std::ptrdiff_t>(done * type.extent)), n, native.data());
        encode(type, n, native.data(), external);
        external += n * item_bytes;
    }
}

void unpack_external32(const Type& type, const void* in, std::size_t count, void* buffer) {
    const auto* external = static_cast<const std::byte*>(in);
    if (count == 0 || type.packed == 0) return;
    if (type.contiguous) {
        decode(type, count, external, type.data(buffer));
        return;
    }
    const std::size_t chunk = chunk_items(type, count);
    const std::size_t item_bytes = external32_bytes(type, 1);
    std::vector<std::byte> native(chunk * type.packed);
    for (std::size_t done = 0; done < count; done += chunk) {
        const std::size_t n = std::min(chunk, count - done);
        decode(type, n, external, native.data());
        unpack(type, native.data(), n * type.packed,
               at(buffer, static_cast<std::ptrdiff_t>(done * type.extent)));
        external += n * item_bytes;
    }
}

}  // namespace si::datatype
