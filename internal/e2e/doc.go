// Package e2e is the opt-in end-to-end test of `cac-tmux watch` against the real Claude Code,
// driven into a usage limit by the loopback mock API of ../shared/tools/mockapi, and against
// the real Codex CLI, driven into its limit by the loopback mock of its backend in
// ../shared/tools/codex (codex_*_test.go). Its files carry the build tag e2e: `make e2e` runs
// them (each case waits for a reset on the real clock; go test's -parallel of them at once;
// `make e2e-codex` runs the five Codex cases at once). CAC_CLAUDE_VERSION picks the Claude
// Code version (default 2.1.332), CAC_CODEX_VERSION the Codex version (default 0.171.0),
// CAC_SHARED the shared directory; CAC_E2E_LOG_LEVEL=debug runs the watcher at debug and
// prints its log even when a case passes.
package e2e
