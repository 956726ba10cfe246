// Who am I, how many are we, and a key-value store to exchange set-up data.
//
// The only implementation is a PMI-1 wire-protocol client: the project's own
// launcher (sirun) serves PMI-1, and so do MPICH's Hydra (mpiexec.hydra) and
// Slurm's pmi2 plugin (srun --mpi=pmi2). Without any PMI environment the
// process runs as a singleton job of size 1.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace si::bootstrap {

class Bootstrap {
public:
    virtual ~Bootstrap() = default;

    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Unique among jobs running at the same time on this host (the PMI kvs name),
    // restricted to [A-Za-z0-9_-] so it can name shared-memory objects.
    virtual const std::string& job_id() const = 0;

    // Publish a value under a key; visible to others after the next fence().
    // Values are printable ASCII without spaces, at most max_value_length().
    virtual void put(std::string_view key, std::string_view value) = 0;
    // A value some rank put before the last fence(); throws si::Error if absent.
    virtual std::string get(std::string_view key) = 0;
    virtual std::size_t max_value_length() const = 0;
    // Commit puts and wait until every rank of the job has reached this fence.
    virtual void fence() = 0;

    // Ask the process manager to end the whole job with this exit code.
    // Returns only if the request could not be delivered.
    virtual void abort(int exit_code, std::string_view message) = 0;
    // Tell the process manager this rank finished cleanly.
    virtual void finalize() = 0;
};

// Connects to the process manager named by the environment (PMI_FD, or
// PMI_PORT with PMI_ID), or returns a singleton when there is none.
// Throws si::Error with an explanation when the environment is inconsistent
// or the process manager does not answer.
std::unique_ptr<Bootstrap> connect();

}  // namespace si::bootstrap
