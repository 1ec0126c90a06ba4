package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update rewrites the golden files with what the tests produce: go test ./... -update.
var update = flag.Bool("update", false, "rewrite the golden files (testdata/*) with the output of the tests")

// File compares got with the golden file at path (under the test's testdata), or writes it
// there with -update. A difference fails the test with both texts.
func File(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (write it with go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from the golden file %s (go test -update rewrites it after a deliberate change)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
