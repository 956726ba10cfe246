// The PMI-1 wire protocol as text: one command or reply per line, made of
// space-separated key=value words, the first of which is cmd=<name>.
//
//   cmd=put kvsname=kvs_12_0 key=host-3 value=node7
//   cmd=put_result rc=0 msg=success
//
// Shared by the client (pmi1_client.cpp) and by sirun's server, so both sides
// agree on quoting rules: there is no quoting at all, which is why keys and
// values may not contain spaces, and keys may not contain '='. A value may
// contain '=' (everything after the first '=' of a word is the value), and
// Hydra passes such values through unchanged.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace si::bootstrap::pmi1 {

class Message {
public:
    explicit Message(std::string_view command);

    // Appends key=value; keeps the order, which is how the line is written.
    Message& add(std::string_view key, std::string_view value);
    Message& add(std::string_view key, long value);

    const std::string& command() const { return fields_.front().second; }
    // The value of the first field with this key, if any.
    std::optional<std::string_view> find(std::string_view key) const;
    // The value of key as a number: nullopt when absent or not a number.
    std::optional<long> find_int(std::string_view key) const;
    const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }

    // "cmd=... key=value ...\n"
    std::string format() const;

private:
    std::vector<std::pair<std::string, std::string>> fields_;
};

// Parses one line without its newline (a trailing '\r' is ignored). Returns
// nullopt when the line does not start with cmd=, or a word has no '=' or an
// empty key. Extra spaces between words are tolerated.
std::optional<Message> parse_message(std::string_view line);

// A key or value that can travel on the wire: printable ASCII, no space, and
// for a key no '='. Empty values are allowed (Hydra sends some).
bool is_wire_key(std::string_view key);
bool is_wire_value(std::string_view value);

// Accumulates bytes from a stream socket and hands out complete lines, so a
// command split over several reads (or several commands in one read) is
// seen exactly as sent.
class LineBuffer {
public:
    // Longer lines mean the peer does not speak PMI-1 (or is broken).
    static constexpr std::size_t kMaxLine = std::size_t{64} * 1024;

    enum class Fill { data, end_of_file, would_block, error };

    // One read() from fd (retried on EINTR); errno is kept for Fill::error.
    [[nodiscard]] Fill fill_from(int fd);
    void append(std::string_view bytes);

    // The next complete line without its '\n'.
    std::optional<std::string> take_line();
    // True when more than kMaxLine bytes arrived without a newline.
    bool overflowed() const;
    bool empty() const { return start_ == data_.size(); }

private:
    std::string data_;
    std::size_t start_ = 0;
};

// Writes all of text, retrying on EINTR and short writes; on a socket it
// uses MSG_NOSIGNAL so a closed peer is an error, not SIGPIPE. On a
// nonblocking fd, returns how much was written before EAGAIN. Returns -1
// with errno set on other errors.
[[nodiscard]] long write_some(int fd, std::string_view text);
// Blocking variant: true when everything was written.
[[nodiscard]] bool write_all(int fd, std::string_view text);

}  // namespace si::bootstrap::pmi1
