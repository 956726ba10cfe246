#include "bootstrap/pmi1_wire.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace si::bootstrap::pmi1 {

Message::Message(std::string_view command) { fields_.emplace_back("cmd", command); }

Message& Message::add(std::string_view key, std::string_view value) {
    fields_.emplace_back(key, value);
    return *this;
}

Message& Message::add(std::string_view key, long value) {
    return add(key, std::string_view(std::to_string(value)));
}

std::optional<std::string_view> Message::find(std::string_view key) const {
    for (const auto& [k, v] : fields_)
        if (k == key) return std::string_view(v);
    return std::nullopt;
}

std::optional<long> Message::find_int(std::string_view key) const {
    auto text = find(key);
    if (!text || text->empty()) return std::nullopt;
    long value = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc{} || end != text->data() + text->size()) return std::nullopt;
    return value;
}

std::string Message::format() const {
    std::string line;
    for (const auto& [key, value] : fields_) {
        if (!line.empty()) line += ' ';
        line += key;
        line += '=';
        line += value;
    }
    line += '\n';
    return line;
}

std::optional<Message> parse_message(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::optional<Message> message;
    std::size_t pos = 0;
    while (pos < line.size()) {
        if (line[pos] == ' ') {
            ++pos;
            continue;
        }
        std::size_t end = line.find(' ', pos);
        if (end == std::string_view::npos) end = line.size();
        std::string_view word = line.substr(pos, end - pos);
        pos = end;
        std::size_t eq = word.find('=');
        if (eq == std::string_view::npos || eq == 0) return std::nullopt;
        std::string_view key = word.substr(0, eq);
        std::string_view value = word.substr(eq + 1);
        if (!message) {
            if (key != "cmd" || value.empty()) return std::nullopt;
            message.emplace(value);
        } else {
            message->add(key, value);
        }
    }
    return message;
}

namespace {
bool is_printable_word_char(char c) { return c > ' ' && c < 0x7f; }
}  // namespace

bool is_wire_key(std::string_view key) {
    if (key.empty()) return false;
    for (char c : key)
        if (!is_printable_word_char(c) || c == '=') return false;
    return true;
}

bool is_wire_value(std::string_view value) {
    for (char c : value)
        if (!is_printable_word_char(c)) return false;
    return true;
}

LineBuffer::Fill LineBuffer::fill_from(int fd) {
    // Compact only when the consumed prefix dominates, so that a burst of
    // short lines does not cost a memmove per line.
    if (start_ > 0 && start_ * 2 >= data_.size()) {
        data_.erase(0, start_);
        start_ = 0;
    }
    char chunk[4096];
    for (;;) {
        ssize_t got = ::read(fd, chunk, sizeof chunk);
        if (got > 0) {
            data_.append(chunk, static_cast<std::size_t>(got));
            return Fill::data;
        }
        if (got == 0) return Fill::end_of_file;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return Fill::would_block;
        return Fill::error;
    }
}

void LineBuffer::append(std::string_view bytes) { data_.append(bytes); }

std::optional<std::string> LineBuffer::take_line() {
    std::size_t newline = data_.find('\n', start_);
    if (newline == std::string::npos) return std::nullopt;
    std::string line = data_.substr(start_, newline - start_);
    start_ = newline + 1;
    if (start_ == data_.size()) {
        data_.clear();
        start_ = 0;
    }
    return line;
}

bool LineBuffer::overflowed() const {
    return data_.size() - start_ > kMaxLine && data_.find('\n', start_) == std::string::npos;
}

long write_some(int fd, std::string_view text) {
    std::size_t done = 0;
    bool use_send = true;
    while (done < text.size()) {
        ssize_t put = use_send ? ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL)
                               : ::write(fd, text.data() + done, text.size() - done);
        if (put >= 0) {
            done += static_cast<std::size_t>(put);
            continue;
        }
        if (errno == EINTR) continue;
        if (errno == ENOTSOCK && use_send) {
            use_send = false;  // a pipe given as PMI_FD
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        return -1;
    }
    return static_cast<long>(done);
}

bool write_all(int fd, std::string_view text) {
    return write_some(fd, text) == static_cast<long>(text.size());
}

}  // namespace si::bootstrap::pmi1
