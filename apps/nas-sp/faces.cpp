#include "faces.hpp"

namespace si::sp {
namespace {

// Tags of the face messages, by the direction the data travel.
constexpr int kToSuccessorTag = 100;
constexpr int kToPredecessorTag = 200;

// Calls body(cell, first local point, end local point) for every cell taking part in
// `layers`, in increasing local cell number: sender and receiver walk their cells in
// the same order, so that the i-th face packed is the i-th face unpacked.
template <typename Cells, typename Layers, typename Body>
void for_each_face(const Layers& layers, Cells& cells, Body body) {
    for (auto& cell : cells) {
        const CellGeometry& g = cell.geometry;
        if (g.coord[layers.d] == layers.skip_coord) continue;
        std::array<int, 3> lo{0, 0, 0};
        std::array<int, 3> hi = g.size;
        lo[layers.d] = (layers.from_end ? g.size[layers.d] : 0) + layers.offset;
        hi[layers.d] = lo[layers.d] + 2;
        body(cell, lo, hi);
    }
}

}  // namespace

FaceExchange::FaceExchange(const Partition& partition, const std::vector<Cell>& cells,
                           MPI_Comm comm)
    : comm_(comm), active_(partition.cells_per_direction() > 1) {
    const int last = partition.cells_per_direction() - 1;
    std::size_t send_total = 0, recv_total = 0;
    for (int d = 0; d < 3; ++d) {
        // Side 0: towards the predecessor our first two layers go, and from it come the
        // ghost layers -2, -1. Side 1: towards the successor our last two layers go,
        // and from it come the ghost layers size, size + 1.
        Message& to_pred = send_[2 * d];
        Message& to_succ = send_[2 * d + 1];
        Message& from_pred = recv_[2 * d];
        Message& from_succ = recv_[2 * d + 1];
        to_pred = {{d, 0, false, 0}, partition.predecessor(d), kToPredecessorTag + d};
        to_succ = {{d, last, true, -2}, partition.successor(d), kToSuccessorTag + d};
        from_pred = {{d, 0, false, -2}, partition.predecessor(d), kToSuccessorTag + d};
        from_succ = {{d, last, true, 0}, partition.successor(d), kToPredecessorTag + d};
        for (Message* m : {&to_pred, &to_succ}) {
            m->offset = send_total;
            m->count = layer_doubles(m->layers, cells);
            send_total += m->count;
        }
        for (Message* m : {&from_pred, &from_succ}) {
            m->offset = recv_total;
            m->count = layer_doubles(m->layers, cells);
            recv_total += m->count;
        }
    }
    if (active_) {
        send_buffer_.assign(send_total, 0.0);
        recv_buffer_.assign(recv_total, 0.0);
    }
}

std::size_t FaceExchange::layer_doubles(const Layers& layers, const std::vector<Cell>& cells) {
    std::size_t count = 0;
    for_each_face(layers, cells, [&](const Cell&, const auto& lo, const auto& hi) {
        count += static_cast<std::size_t>(kComponents) * (hi[0] - lo[0]) * (hi[1] - lo[1]) *
                 (hi[2] - lo[2]);
    });
    return count;
}

void FaceExchange::pack(const Layers& layers, const std::vector<Cell>& cells, double* out) {
    for_each_face(layers, cells, [&](const Cell& cell, const auto& lo, const auto& hi) {
        for (int m = 0; m < kComponents; ++m)
            for (int k = lo[2]; k < hi[2]; ++k)
                for (int j = lo[1]; j < hi[1]; ++j) {
                    const double* row = cell.u[m].data() + cell.shape.at(0, j, k);
                    for (int i = lo[0]; i < hi[0]; ++i) *out++ = row[i];
                }
    });
}

void FaceExchange::unpack(const Layers& layers, std::vector<Cell>& cells, const double* in) {
    for_each_face(layers, cells, [&](Cell& cell, const auto& lo, const auto& hi) {
        for (int m = 0; m < kComponents; ++m)
            for (int k = lo[2]; k < hi[2]; ++k)
                for (int j = lo[1]; j < hi[1]; ++j) {
                    double* row = cell.u[m].data() + cell.shape.at(0, j, k);
                    for (int i = lo[0]; i < hi[0]; ++i) row[i] = *in++;
                }
    });
}

void FaceExchange::exchange(std::vector<Cell>& cells) {
    if (!active_) return;
    std::array<MPI_Request, 12> requests;
    for (int f = 0; f < 6; ++f) {
        const Message& m = recv_[f];
        MPI_Irecv(recv_buffer_.data() + m.offset, static_cast<int>(m.count), MPI_DOUBLE, m.peer,
                  m.tag, comm_, &requests[f]);
    }
    for (int f = 0; f < 6; ++f) {
        const Message& m = send_[f];
        pack(m.layers, cells, send_buffer_.data() + m.offset);
        MPI_Isend(send_buffer_.data() + m.offset, static_cast<int>(m.count), MPI_DOUBLE, m.peer,
                  m.tag, comm_, &requests[6 + f]);
    }
    MPI_Waitall(12, requests.data(), MPI_STATUSES_IGNORE);
    for (int f = 0; f < 6; ++f) {
        const Message& m = recv_[f];
        unpack(m.layers, cells, recv_buffer_.data() + m.offset);
    }
}

}  // namespace si::sp
