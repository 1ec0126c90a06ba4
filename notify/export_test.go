package notify

import "testing"

// SetGOOS makes the package act as on goos (the desktop channel's program) until t ends.
func SetGOOS(t testing.TB, s string) {
	old := goos
	goos = s
	t.Cleanup(func() { goos = old })
}

// OsaScript is the fixed script osascript runs.
var OsaScript = osaScript
