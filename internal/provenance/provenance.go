// Package provenance records what a result was computed from (the command
// line, the versions, every input file with its content hash) apart from
// what varies between runs of the same command (the run record: start time,
// wall times, the machine), so that results keep their bytes.
package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/report"
)

// Record records what a result was computed from: the command line,
// the versions of piopt and XGBoost, and every input file with its content
// hash. It holds nothing that varies between runs of the same command on
// the same inputs, so results written with it keep their bytes; what does
// vary (start time, wall times, the machine) goes to a Machine-carrying
// run record beside them (run.json).
type Record struct {
	Command        string  `json:"command"`
	PioptVersion   string  `json:"piopt_version"`
	XGBoostVersion string  `json:"xgboost_version"`
	Inputs         []Input `json:"inputs"`
}

// Input is one input file as the command named it.
type Input struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"` // hex
	Bytes  int64  `json:"bytes"`
}

// HashFile hashes the file at path with SHA-256, streaming it: inputs of
// MSLR size (a gigabyte and more) are never held in memory.
func HashFile(path string) (Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return Input{}, fmt.Errorf("hashing input: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Input{}, fmt.Errorf("hashing %s: %w", path, err)
	}
	return Input{Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}

// HashInputs hashes every path once, in the order given (a path given
// twice is listed once).
func HashInputs(paths ...string) ([]Input, error) {
	var out []Input
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		in, err := HashFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// AddTo adds the provenance to a report page: the versions, the inputs
// with their hashes, and the command line.
func (p Record) AddTo(page *report.Page) {
	page.Heading(2, "Provenance")
	page.Paragraph(fmt.Sprintf("piopt %s, XGBoost %s.", p.PioptVersion, p.XGBoostVersion))
	rows := make([][]string, len(p.Inputs))
	for i, in := range p.Inputs {
		rows[i] = []string{in.Path, fmt.Sprint(in.Bytes), in.SHA256}
	}
	page.Table([]string{"input", "bytes", "sha256"}, rows)
	page.Pre(p.Command)
}

// Machine is the part of a run record that describes where it ran.
type Machine struct {
	Hostname   string `json:"hostname"`
	Cores      int    `json:"cores"`      // runtime.NumCPU
	GOMAXPROCS int    `json:"gomaxprocs"` // threads Go runs at once
}

// ThisMachine describes the machine running now.
func ThisMachine() Machine {
	host, _ := os.Hostname()
	return Machine{Hostname: host, Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
}

// StartTime formats a run's start for its run record: RFC 3339 in UTC,
// to the second.
func StartTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// RunPath is where the run record of a result written to path goes:
// beside it, with ".json" or ".html" replaced by ".run.json" (sweep.json →
// sweep.run.json), or ".run.json" appended to other names.
func RunPath(path string) string {
	for _, ext := range []string{".json", ".html"} {
		if strings.HasSuffix(path, ext) {
			return strings.TrimSuffix(path, ext) + ".run.json"
		}
	}
	return path + ".run.json"
}

// WriteRun writes a run record as indented JSON, atomically.
func WriteRun(path string, run any) error {
	b, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// Key hashes settings into a short name for a cache or a stored result:
// the first 16 hex digits of the SHA-256 of every part printed with %v and
// ended by a NUL byte, so that ("ab", "c") and ("a", "bc") differ.
func Key(parts ...any) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%v\x00", p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
