package data

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// memAvailable is AvailableMemory; tests replace it.
var memAvailable = AvailableMemory

// AvailableMemory returns the bytes of memory this process may still
// allocate, as far as the system tells: /proc/meminfo's MemAvailable, lowered
// to the room left under a cgroup memory limit when one is set (cgroup v2
// memory.max, or v1 memory.limit_in_bytes). ok is false when none of these
// can be read (not Linux, no /proc): the caller then has no bound to check.
func AvailableMemory() (n int64, ok bool) {
	n, ok = memInfoAvailable("/proc/meminfo")
	for _, f := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, lok := readInt(f[0])
		if !lok || limit <= 0 || limit >= 1<<60 { // "max", or v1's "unlimited"
			continue
		}
		used, _ := readInt(f[1])
		room := max(limit-used, 0)
		if !ok || room < n {
			n = room
		}
		return n, true
	}
	return n, ok
}

// memInfoAvailable reads the MemAvailable line of a meminfo file.
func memInfoAvailable(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("MemAvailable:")); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// readInt reads a file holding one integer.
func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}
