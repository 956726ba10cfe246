// Derived datatype constructors: every one flattens its pieces into a type
// map and derives the bounds, sizes and base from it (see datatype.hpp).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "datatype/derived.hpp"

namespace si::datatype {

namespace {

// Appends a run, merging it into the previous one when they touch and hold
// the same kind of unit, so a dense type ends as one block.
class MapBuilder {
  public:
    bool add(const Block& block) {
        if (block.length == 0) return true;
        if (!map_.empty()) {
            Block& last = map_.back();
            if (last.offset + static_cast<std::ptrdiff_t>(last.length) == block.offset &&
                last.unit == block.unit && last.unit_elements == block.unit_elements) {
                last.length += block.length;
                return true;
            }
        }
        if (map_.size() >= kMaxBlocks) return false;
        map_.push_back(block);
        return true;
    }
    TypeMap take() { return std::move(map_); }

  private:
    TypeMap map_;
};

// Appends the units of a type's pieces to its signature (datatype.hpp),
// merging runs of one basic type and nesting the repeated signature of a
// mixed old type instead of copying it `count` times.
class SignatureBuilder {
  public:
    void add(const Type& old, std::size_t count) {
        if (count == 0 || old.elements == 0) return;
        if (!old.signature) {
            append({old.base, nullptr, count * old.elements});
        } else if (count == 1) {
            for (const Signature::Run& run : old.signature->runs) append(run);
        } else {
            signature_.runs.push_back({MPI_DATATYPE_NULL, old.signature, count});
        }
    }
    std::shared_ptr<const Signature> take() {
        return std::make_shared<const Signature>(std::move(signature_));
    }

  private:
    void append(const Signature::Run& run) {
        std::vector<Signature::Run>& runs = signature_.runs;
        if (!run.nested && !runs.empty() && !runs.back().nested && runs.back().basic == run.basic)
            runs.back().count += run.count;
        else
            runs.push_back(run);
    }
    Signature signature_;
};

// Bounds and layout facts that follow from the map and the extent.
void finish_layout(Type& type) {
    const TypeMap& map = *type.map;
    if (map.empty()) {
        type.true_lb = 0;
        type.true_extent = 0;
    } else {
        std::ptrdiff_t lo = std::numeric_limits<std::ptrdiff_t>::max();
        std::ptrdiff_t hi = std::numeric_limits<std::ptrdiff_t>::min();
        for (const Block& block : map) {
            lo = std::min(lo, block.offset);
            hi = std::max(hi, block.offset + static_cast<std::ptrdiff_t>(block.length));
        }
        type.true_lb = lo;
        type.true_extent = static_cast<std::size_t>(hi - lo);
    }
    type.contiguous =
        map.empty() || (map.size() == 1 && type.extent == static_cast<std::ptrdiff_t>(type.packed));
}

int store(Type type, const std::string& name, MPI_Datatype& out) {
    type.predefined = false;
    type.committed = false;
    type.handle = MPI_DATATYPE_NULL;
    std::string shortened = short_name(name);
    const int handle = derived_types().add(std::move(type), [&](int) { return shortened; });
    if (handle == 0) return MPI_ERR_INTERN;
    out = handle;
    return MPI_SUCCESS;
}

}  // namespace

int create_from_pieces(std::span<const Piece> pieces, bool is_struct, const std::string& name,
                       MPI_Datatype& out) {
    Type type;
    type.size = type.packed = type.elements = type.basic_elements = 0;
    MapBuilder builder;
    SignatureBuilder signature;
    bool first = true, bounded = false;
    std::ptrdiff_t lb = 0, ub = 0;
    for (const Piece& piece : pieces) {
        const Type* found = lookup(piece.type);
        if (found == nullptr) return MPI_ERR_TYPE;
        // A copy: the old type may be freed by another thread meanwhile.
        const Type old = *found;
        if (first || old.base != type.base) {
            type.base = first ? old.base : MPI_DATATYPE_NULL;
            type.family = first ? old.family : Family::none;
        }
        first = false;
        type.alignment = std::max(type.alignment, old.alignment);
        type.resized = type.resized || old.resized;
        if (piece.count == 0) continue;
        std::size_t bytes = 0;
        if (__builtin_mul_overflow(piece.count, old.size, &bytes) ||
            __builtin_add_overflow(type.size, bytes, &type.size) ||
            __builtin_mul_overflow(piece.count, old.packed, &bytes) ||
            __builtin_add_overflow(type.packed, bytes, &type.packed))
            return MPI_ERR_COUNT;
        type.elements += piece.count * old.elements;
        type.basic_elements += piece.count * old.basic_elements;
        signature.add(old, piece.count);
        const std::ptrdiff_t extent = old.extent;
        const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(piece.count - 1) * extent;
        const std::ptrdiff_t piece_lb =
            piece.displacement + old.lb + std::min<std::ptrdiff_t>(0, last);
        const std::ptrdiff_t piece_ub =
            piece.displacement + old.lb + std::max<std::ptrdiff_t>(0, last) + extent;
        lb = bounded ? std::min(lb, piece_lb) : piece_lb;
        ub = bounded ? std::max(ub, piece_ub) : piece_ub;
        bounded = true;
        Block storage;
        const std::span<const Block> blocks = old.blocks(storage);
        // Items of a dense type are one run however many there are.
        if (old.contiguous && blocks.size() == 1) {
            Block run = blocks[0];
            run.offset += piece.displacement;
            run.length = piece.count * old.packed;
            if (!builder.add(run)) return MPI_ERR_INTERN;
            continue;
        }
        for (std::size_t i = 0; i < piece.count; ++i)
            for (Block block : blocks) {
                block.offset += piece.displacement + static_cast<std::ptrdiff_t>(i) * extent;
                if (!builder.add(block)) return MPI_ERR_INTERN;
            }
    }
    if (type.base == MPI_DATATYPE_NULL) {
        type.family = Family::none;
        type.signature = signature.take();
    }
    type.lb = lb;
    // Below zero only with members of negative extent (as MPICH computes it).
    std::ptrdiff_t extent = ub - lb;
    // A C struct is padded to its strictest member, so arrays of it line up;
    // a resized member's bounds are the user's word and are kept as they are.
    const auto alignment = static_cast<std::ptrdiff_t>(type.alignment);
    if (is_struct && !type.resized && alignment > 1 && extent > 0 && extent % alignment != 0)
        extent += alignment - extent % alignment;
    type.extent = extent;
    type.map = std::make_shared<const TypeMap>(builder.take());
    finish_layout(type);
    return store(std::move(type), name, out);
}

int create_contiguous(int count, MPI_Datatype old, MPI_Datatype& out) {
    if (count < 0) return MPI_ERR_COUNT;
    const Type* found = lookup(old);
    if (found == nullptr) return MPI_ERR_TYPE;
    const Piece piece{old, 0, static_cast<std::size_t>(count)};
    return create_from_pieces({&piece, 1}, false,
                              fmt::format("contiguous({} x {})", count, found->name), out);
}

int create_resized(MPI_Datatype old, std::ptrdiff_t lb, std::ptrdiff_t extent, MPI_Datatype& out) {
    const Type* found = lookup(old);
    if (found == nullptr) return MPI_ERR_TYPE;
    Type type = *found;
    const std::string name = fmt::format("resized({}, lb {}, extent {})", found->name, lb, extent);
    if (!type.map) {
        Block storage;
        type.map = std::make_shared<const TypeMap>(TypeMap{type.blocks(storage)[0]});
    }
    type.lb = lb;
    type.extent = extent;
    type.resized = true;
    finish_layout(type);
    return store(std::move(type), name, out);
}

int create_dup(MPI_Datatype old, MPI_Datatype& out) {
    const Type* found = lookup(old);
    if (found == nullptr) return MPI_ERR_TYPE;
    Type type = *found;
    const std::string name = fmt::format("dup({})", found->name);
    if (!type.map) {
        Block storage;
        type.map = std::make_shared<const TypeMap>(TypeMap{type.blocks(storage)[0]});
    }
    return store(std::move(type), name, out);
}

int store_copy(const Type& type, MPI_Datatype& out, const std::string& name) {
    // The copy's name pointed into the original's table slot: give it its own.
    if (int rc = store(type, name, out))
        return rc;
    return type.committed ? commit(out) : MPI_SUCCESS;
}

int set_envelope(MPI_Datatype handle, Envelope envelope) {
    auto shared = std::make_shared<const Envelope>(std::move(envelope));
    return derived_types().update(handle, [&](Type& type) { type.envelope = std::move(shared); })
               ? MPI_SUCCESS
               : MPI_ERR_TYPE;
}

}  // namespace si::datatype
