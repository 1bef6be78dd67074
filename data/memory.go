package data

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
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
	return availableMemory("/")
}

// availableMemory is AvailableMemory with /proc and /sys under root.
func availableMemory(root string) (n int64, ok bool) {
	n, ok = readField(filepath.Join(root, "proc/meminfo"), "MemAvailable:")
	for _, c := range []struct{ limit, usage, stat, inactive string }{
		{"memory.max", "memory.current", "memory.stat", "inactive_file"},
		{"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes", "memory/memory.stat", "total_inactive_file"},
	} {
		dir := filepath.Join(root, "sys/fs/cgroup")
		limit, lok := readInt(filepath.Join(dir, c.limit))
		if !lok || limit <= 0 || limit >= 1<<60 { // "max", or v1's "unlimited"
			continue
		}
		used, _ := readInt(filepath.Join(dir, c.usage))
		// The usage counts the page cache of files read or written, which
		// the kernel drops before it runs out: its inactive part is room
		// (as container runtimes count a working set).
		if inactive, iok := readField(filepath.Join(dir, c.stat), c.inactive); iok {
			used = max(used-inactive, 0)
		}
		room := max(limit-used, 0)
		if !ok || room < n {
			n = room
		}
		return n, true
	}
	return n, ok
}

// readField reads the number after key at the start of a line of a
// meminfo or memory.stat file ("MemAvailable:   123 kB", "inactive_file
// 123"), in bytes.
func readField(path, key string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte(key))
		if !ok || len(rest) == 0 || rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		v, kb := strings.CutSuffix(strings.TrimSpace(string(rest)), " kB")
		n, err := strconv.ParseInt(v, 10, 64)
		if kb {
			n <<= 10
		}
		return n, err == nil
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
