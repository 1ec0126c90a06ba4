package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// server is a Server that answers with opts, or err.
type server struct {
	opts []Option
	err  error
}

func (s server) Options(context.Context, string) ([]Option, error) { return s.opts, s.err }

func (s server) Name() string { return "server -L test" }

func writeFile(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadSources: the file, the server's options and the flags, each over the one before; and what
// the configuration was read from.
func TestLoadSources(t *testing.T) {
	path := writeFile(t, "[watch]\nmargin = \"2m\"\nstagger = \"7s\"\n")
	srv := server{opts: []Option{{"@cac-tmux-margin", "3m"}, {"@cac-tmux-key", "C"}}}
	l, err := Load(context.Background(), path, srv, []Flag{{Name: "--message", Key: "watch.message", Value: "go on"}})
	if err != nil {
		t.Fatal(err)
	}
	w := l.Config.Watch
	if w.Margin != 3*time.Minute || w.Stagger != 7*time.Second || w.Message != "go on" || !l.Served || l.Failed != nil {
		t.Errorf("Load = %+v", l)
	}
	want := []string{"watch.margin: tmux option @cac-tmux-margin", "watch.message: flag --message", "watch.stagger: file " + path + ":3"}
	if got := l.FromElsewhere(); !slices.Equal(got, want) {
		t.Errorf("FromElsewhere() = %q, want %q", got, want)
	}
	want = []string{"file " + path + ": read", "tmux options of server -L test: 1 set (@cac-tmux-margin)"}
	if got := l.Describe(); !slices.Equal(got, want) {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
}

// TestLoadServerUnasked: no server to ask, or none given, is read without options and says
// why; a server that fails is read without its options too, and Failed says why.
func TestLoadServerUnasked(t *testing.T) {
	path := writeFile(t, "[watch]\nmargin = \"2m\"\n")
	failure := errors.New("tmux options of server -L test: timed out")
	cases := []struct {
		name   string
		srv    Server
		unread string
		failed error
	}{
		{"none given", nil, "no tmux server asked", nil},
		{"none runs", server{err: &Unasked{Why: "no server runs on server -L test"}}, "no server runs on server -L test", nil},
		{"fails", server{err: failure}, failure.Error(), failure},
	}
	for _, c := range cases {
		l, err := Load(context.Background(), path, c.srv, nil)
		if err != nil || l.Served || l.Unread != c.unread || l.Failed != c.failed || l.Config.Watch.Margin != 2*time.Minute {
			t.Errorf("%s: Load = unread %q, failed %v, served %v, margin %s, %v; want unread %q, failed %v, the file's margin",
				c.name, l.Unread, l.Failed, l.Served, l.Config.Watch.Margin, err, c.unread, c.failed)
		}
		if got := l.Describe()[1]; got != "tmux options: "+c.unread+"; none read" {
			t.Errorf("%s: Describe()[1] = %q", c.name, got)
		}
		if got := l.FailedAlone(true); got != c.failed {
			t.Errorf("%s: FailedAlone(true) = %v, want %v: a command about the server alone stops", c.name, got, c.failed)
		}
		if got := l.FailedAlone(false); got != nil {
			t.Errorf("%s: FailedAlone(false) = %v; a command that covers more goes on", c.name, got)
		}
	}
}

// TestLoadEveryMistake: the mistakes of the file, the options and the flags are one error
// listing all of them, even when the server failed.
func TestLoadEveryMistake(t *testing.T) {
	path := writeFile(t, "[watch]\nmargin = \"soon\"\n")
	srv := server{opts: []Option{{"@cac-tmux-stagger", "x"}}}
	_, err := Load(context.Background(), path, srv, []Flag{{Name: "--interval", Key: "watch.interval", Value: "1ms"}})
	want := `watch.margin: must be a duration like "90s" (` + path + ` line 2, got "soon")` + "\n" +
		`tmux option @cac-tmux-stagger: must be a duration like "90s" (got "x")` + "\n" +
		`--interval: must be at least 100ms (got "1ms")`
	if err == nil || err.Error() != want {
		t.Errorf("Load = %v\nwant\n%s", err, want)
	}
	_, err = Load(context.Background(), path, server{err: errors.New("hung")}, nil)
	var e *Error
	if !errors.As(err, &e) || e.Key != "watch.margin" {
		t.Errorf("Load with a failing server = %v, want the file's mistake", err)
	}
}
