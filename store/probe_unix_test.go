//go:build unix

package store

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestProbe: Probe writes and removes its file in a directory that can take it, and says why
// not in one that cannot: a path under a regular file (ENOTDIR).
func TestProbe(t *testing.T) {
	dir := t.TempDir()
	if err := Probe(dir); err != nil {
		t.Fatalf("Probe(%s) = %v", dir, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("Probe left %v behind", left)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := Probe(filepath.Join(file, "cac-tmux"))
	if !errors.Is(err, syscall.ENOTDIR) || !strings.HasPrefix(err.Error(), "store: probe "+filepath.Join(file, "cac-tmux")+": open ") {
		t.Errorf("Probe(under a file) = %v, want ENOTDIR", err)
	}
}

// probeChildEnv makes the test binary run TestProbeFileSizeLimit's child: Probe in the
// directory the variable names.
const probeChildEnv = "CAC_TMUX_PROBE_CHILD"

// TestProbeFileSizeLimit: where the file can be created but not written, as on a full disk,
// Probe fails at the write, and removes the file. Root ignores file modes, so the test runs a
// child under a file size limit of 0 (ulimit -f 0: every write to a file fails with EFBIG,
// for root too; Go ignores the SIGXFSZ that comes with it).
func TestProbeFileSizeLimit(t *testing.T) {
	if dir := os.Getenv(probeChildEnv); dir != "" {
		if err := Probe(dir); err != nil {
			os.Stdout.WriteString("probe error: " + err.Error() + "\n")
		}
		return
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `ulimit -f 0 && exec "$0" -test.run='^TestProbeFileSizeLimit$' -test.count=1`, os.Args[0])
	cmd.Env = append(os.Environ(), probeChildEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "probe error: store: probe "+dir+": write "+dir+"/.cac-tmux-probe-") ||
		!strings.Contains(string(out), ": file too large") {
		t.Errorf("the child printed %q, want the probe's write to fail with EFBIG", out)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("Probe left %v behind", left)
	}
}
