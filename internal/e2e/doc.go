// Package e2e holds the opt-in end-to-end test of `cac-tmux watch` against the real Claude
// Code, driven into a usage limit by the loopback mock API of ../shared/tools/mockapi. Its
// files carry the build tag e2e, so `go test ./...` never compiles them; run them with
// `make e2e` (each case waits for a reset on the real clock, 2 to 4 minutes; the cases run
// side by side, as many at once as go test's -parallel, which is the number of CPUs unless
// given: `go test -tags e2e -count=1 -parallel 12 -v ./internal/e2e/` runs them all at once).
//
// CAC_CLAUDE_VERSION picks the Claude Code version (default 2.1.332), CAC_SHARED the shared
// directory, CAC_E2E_LOG_LEVEL=debug runs the watcher at debug level and prints its log even
// when a case passes.
package e2e
