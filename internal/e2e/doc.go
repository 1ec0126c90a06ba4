// Package e2e holds the opt-in end-to-end test of `cac-tmux watch` against the real Claude
// Code, driven into a usage limit by the loopback mock API of ../shared/tools/mockapi. Its
// files carry the build tag e2e, so `go test ./...` never compiles them; run them with
// `make e2e` (about 5 minutes, the cases side by side, each waiting for a reset on the real
// clock).
package e2e
