#include "cell.hpp"

namespace si::sp {

Cell::Cell(const CellGeometry& g) : geometry(g), shape(g.size) {
    for (auto* group : {&u, &rhs, &forcing})
        for (Field& f : *group) f.assign(shape.count, 0.0);
    for (Field& f : aux) f.assign(shape.count, 0.0);
    const auto interior = static_cast<std::size_t>(interior_points());
    for (Field& f : rhs_x) f.assign(interior, 0.0);
    for (Field& f : eliminated) f.assign(interior, 0.0);
}

}  // namespace si::sp
