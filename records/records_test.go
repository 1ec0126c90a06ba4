package records_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cac-tmux/cac-tmux/records"
)

func TestEnvDirs(t *testing.T) {
	e := records.ParseEnviron([]byte("PATH=/bin\x00HOME=/home/u\x00TERM=xterm\x00"))
	if e.Dir() != "/home/u/.claude" {
		t.Errorf("Dir() = %q, want $HOME/.claude", e.Dir())
	}
	e = records.ParseEnviron([]byte("HOME=/home/u\x00CLAUDE_CONFIG_DIR=/srv/acct2"))
	if e.Dir() != "/srv/acct2" {
		t.Errorf("Dir() = %q, want CLAUDE_CONFIG_DIR", e.Dir())
	}
	if _, err := (records.Env{}).ReadEntry(1); !errors.Is(err, records.ErrNoRecord) {
		t.Errorf("ReadEntry without an environment = %v, want ErrNoRecord", err)
	}
}

// TestRegistryAndSettings reads files shaped like those Claude Code 2.1.330 wrote (see the
// package comment).
func TestRegistryAndSettings(t *testing.T) {
	home := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude/sessions/4650.json", `{"pid":4650,"sessionId":"fd06168e-2c28-499c-9fa0-3d4ee72b1977","cwd":"/tmp/w","startedAt":1795474539038,"procStart":"26849","version":"2.1.330","kind":"interactive","entrypoint":"cli","status":"idle"}`)
	write(".claude/sessions/7.json", `{"pid":8}`)
	write(".claude.json", `{"numStartups":5,"editorMode":"vim","projects":{}}`)
	e := records.Env{Home: home}
	en, err := e.ReadEntry(4650)
	if err != nil || en.ProcStart != "26849" || en.Version != "2.1.330" || en.Status != "idle" || en.Kind != "interactive" {
		t.Errorf("ReadEntry(4650) = %+v, %v", en, err)
	}
	if _, err := e.ReadEntry(7); err == nil {
		t.Error("ReadEntry(7) of a file naming pid 8: no error")
	}
	if _, err := e.ReadEntry(9); !errors.Is(err, records.ErrNoRecord) {
		t.Errorf("ReadEntry(9) = %v, want ErrNoRecord", err)
	}
	if m, err := e.EditorMode(""); m != "vim" || err != nil {
		t.Errorf("EditorMode() = %q, %v, want vim", m, err)
	}
	write(".claude.json", `{"numStartups":5}`)
	if m, err := e.EditorMode(""); m != "" || err != nil {
		t.Errorf("EditorMode() without the key = %q, %v, want \"\"", m, err)
	}
	write(".claude.json", `{"editorMode":`)
	if _, err := e.EditorMode(""); err == nil || errors.Is(err, records.ErrNoRecord) {
		t.Errorf("EditorMode() of a broken file = %v, want a parse error", err)
	}
}

// Vim mode set with /config lives in the settings files: the project's
// local and shared settings, then the account's settings.json, then the global config.
func TestEditorModeFromSettings(t *testing.T) {
	home := t.TempDir()
	cwd := filepath.Join(home, "work")
	e := records.Env{Home: home}
	steps := []struct {
		file, text, want string
	}{
		{".claude.json", `{"editorMode":"normal"}`, "normal"},
		{".claude/settings.json", `{"theme":"dark","editorMode":"vim"}`, "vim"},
		{"work/.claude/settings.json", `{"editorMode":"normal"}`, "normal"},
		{"work/.claude/settings.local.json", `{"editorMode":"vim"}`, "vim"},
	}
	for _, st := range steps {
		write(t, filepath.Join(home, st.file), st.text)
		if m, err := e.EditorMode(cwd); m != st.want || err != nil {
			t.Errorf("with %s: EditorMode = %q, %v, want %q", st.file, m, err, st.want)
		}
	}
	if m, err := e.EditorMode(""); m != "vim" || err != nil {
		t.Errorf("without the cwd: EditorMode = %q, %v, want the account's vim", m, err)
	}
	write(t, filepath.Join(home, ".claude/settings.json"), `{"theme":"dark"}`)
	if m, err := e.EditorMode(""); m != "normal" || err != nil {
		t.Errorf("unset in settings.json: EditorMode = %q, %v, want the global config's normal", m, err)
	}
	e = records.Env{ConfigDir: filepath.Join(home, "acct")}
	write(t, filepath.Join(home, "acct/settings.json"), `{"editorMode":"vim"}`)
	if m, err := e.EditorMode(""); m != "vim" || err != nil {
		t.Errorf("CLAUDE_CONFIG_DIR's settings.json: EditorMode = %q, %v, want vim", m, err)
	}
}
