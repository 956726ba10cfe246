"""What the stress scripts read of a job's processes, from /proc."""
import os


def parents():
    """Every process's parent pid."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                found[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return found


def children(pid):
    """Pids whose parent is pid."""
    return [child for child, parent in parents().items() if parent == pid]


def descendants(root):
    """Pids below root, at any depth."""
    table = parents()
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in table.items():
            if parent == pid:
                found.append(child)
                frontier.append(child)
    return found


def name_of(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


def alive(pid):
    """Running, and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def rss_kib(pid):
    """Resident memory, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None
