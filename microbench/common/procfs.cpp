#include "common/procfs.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace si::bench {

double proc_kib(const std::string& path, const std::string& key) {
    std::ifstream file(path);
    std::string word;
    double kib = 0;
    while (file >> word) {
        if (word == key && file >> kib) return kib;
        file.ignore(1 << 20, '\n');
    }
    return -1;
}

std::vector<std::string> child_pids() {
    std::vector<std::string> pids;
    DIR* tasks = ::opendir("/proc/self/task");
    if (tasks == nullptr) return pids;
    while (const dirent* task = ::readdir(tasks)) {
        if (task->d_name[0] == '.') continue;
        std::ifstream children(std::string("/proc/self/task/") + task->d_name + "/children");
        std::string pid;
        while (children >> pid) pids.push_back(pid);
    }
    ::closedir(tasks);
    return pids;
}

double proportional_kib(const std::string& pid) {
    return proc_kib("/proc/" + pid + "/smaps_rollup", "Pss:");
}

double cpu_seconds(const std::string& pid) {
    std::ifstream file("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(file, line)) return -1;
    // The command name, field 2, is in parentheses and may hold spaces: count
    // fields from the last ')'. utime and stime are fields 14 and 15.
    const auto end = line.rfind(')');
    if (end == std::string::npos) return -1;
    std::istringstream fields(line.substr(end + 2));
    std::string skip;
    for (int field = 3; field < 14; ++field) fields >> skip;
    double user = 0, system = 0;
    if (!(fields >> user >> system)) return -1;
    return (user + system) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double children_proportional_kib() {
    double total = 0;
    for (const auto& pid : child_pids()) total += std::max(0.0, proportional_kib(pid));
    return total;
}

double children_cpu_seconds() {
    double total = 0;
    for (const auto& pid : child_pids()) total += std::max(0.0, cpu_seconds(pid));
    return total;
}

double footprint_kib(MPI_Comm comm) {
    double children = children_proportional_kib(), all_children = 0;
    MPI_Allreduce(&children, &all_children, 1, MPI_DOUBLE, MPI_SUM, comm);
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    return proportional_kib("self") + all_children / ranks;
}

}  // namespace si::bench
