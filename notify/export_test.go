package notify

import (
	"slices"
	"testing"
)

// SetGOOS makes the package act as on goos (the desktop channel's program) until t ends.
func SetGOOS(t testing.TB, s string) {
	old := goos
	goos = s
	t.Cleanup(func() { goos = old })
}

// OsaScript is the fixed script osascript runs.
var OsaScript = osaScript

// EventKinds returns the known events in documentation order. The slice is the caller's.
func EventKinds() []EventKind { return slices.Clone(eventKinds) }

// ParseEventKind reads an event name strictly (parseEventKind).
func ParseEventKind(s string) (EventKind, error) { return parseEventKind(s) }

// Title is the one-line summary of e (titleOf).
func Title(e Event) string { return titleOf(e) }

// Body is the text of e's notification (bodyOf).
func Body(e Event) string { return bodyOf(e) }

// The worker's queue and retry (queueSize, retryPause).
const (
	QueueSize  = queueSize
	RetryPause = retryPause
)
