// Package codexscreens captures the golden Codex CLI screens of detector/testdata/codex-screens
// from the real Codex (0.171.0) driven against the loopback mock of its backend
// (../shared/tools/codex). It is run by hand, never by `make test`: its one test carries the
// build tag codexscreens and needs the real Codex fetched by ../shared/tools/codex/real-codex.sh.
//
//	go test -tags codexscreens -run TestCapture -v -timeout 30m ./internal/codexscreens/
//
// Each screen is the bytes of `tmux capture-pane -p -J -e` (SGR escapes kept), and
// EXPECT.tsv gets one row per screen: what the detector must read there (limited, the reset
// instant, the kind, the zone of the printed time) and when the screen was captured.
package codexscreens
