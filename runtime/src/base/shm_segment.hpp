// Lifetime of one named POSIX shared-memory segment.
//
// Every segment of a job is named /si-<job_id>-<what>, so the launcher can
// remove leftovers of a crashed job by prefix. The creator unlinks the name as
// soon as every process has mapped it (see unlink()); until then the name is
// kept in a process-wide list that a fatal-signal handler unlinks before the
// process dies, so neither a crash nor a kill leaves a segment behind.
#pragma once

#include <cstddef>
#include <string>

namespace si {

class SharedSegment {
public:
    SharedSegment() = default;
    SharedSegment(SharedSegment&& other) noexcept;
    SharedSegment& operator=(SharedSegment&& other) noexcept;
    SharedSegment(const SharedSegment&) = delete;
    SharedSegment& operator=(const SharedSegment&) = delete;
    ~SharedSegment();

    // Creates (fails if it exists) and maps a zero-filled segment.
    static SharedSegment create(const std::string& name, std::size_t bytes);
    // Maps an existing segment created by another process.
    static SharedSegment open(const std::string& name);

    // Removes the name; mappings stay valid. Idempotent.
    void unlink();

    void* data() const { return data_; }
    std::size_t size() const { return bytes_; }
    const std::string& name() const { return name_; }

    // "/si-<job_id>-<what>"
    static std::string name_for(const std::string& job_id, const std::string& what);

private:
    void reset() noexcept;

    std::string name_;
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
    bool linked_ = false;
};

// Unlinks every name not yet unlinked (safe in a signal handler) and chains to
// the previously installed handlers; installed once on first create().
void install_segment_cleanup_handlers();

}  // namespace si
