// PMI-1 lines as the launcher's server (or a broken one) may send them: the
// line buffer splits a stream into lines, the parser reads each. A message
// whose keys and values could travel on the wire (is_wire_key/value: the
// parser also takes bytes a sender may not write, such as a trailing '\r')
// must format back into a line that parses to the same fields.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "bootstrap/pmi1_wire.hpp"

using namespace si::bootstrap::pmi1;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    LineBuffer buffer;
    buffer.append(bytes);
    while (const std::optional<std::string> line = buffer.take_line()) {
        const std::optional<Message> message = parse_message(*line);
        if (!message) continue;
        (void)message->find_int("rc");
        bool writable = true;
        for (const auto& [key, value] : message->fields())
            writable = writable && is_wire_key(key) && is_wire_value(value);
        if (!writable) continue;
        const std::string formatted = message->format();
        const std::optional<Message> again =
            parse_message(std::string_view(formatted).substr(0, formatted.size() - 1));
        if (!again || again->fields() != message->fields()) std::abort();
    }
    return 0;
}
