//go:build !unix

package proc

import "os"

// readFile reads a whole file; without /proc (not unix) this only serves fake trees in tests.
func readFile(path string, _ []byte) ([]byte, error) { return os.ReadFile(path) }
