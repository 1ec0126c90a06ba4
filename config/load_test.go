package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// tmuxOption is a tmux client's option, as tmuxctl.UserOption is.
type tmuxOption struct{ Name, Value string }

// tmuxClient is a tmux client that answers its options, or fails with err.
type tmuxClient struct {
	opts []tmuxOption
	err  error
}

func (c tmuxClient) UserOptions(context.Context, string) ([]tmuxOption, error) { return c.opts, c.err }
func (c tmuxClient) Name() string                                              { return "server -L work" }

// TestTmuxServer: a tmux client's options are read as they are; no server on its socket, or
// no tmux, is no server to ask; any other failure is worded with the server's name.
func TestTmuxServer(t *testing.T) {
	noServer := errors.New("tmuxctl: no server")
	opts, err := TmuxServer[tmuxOption](tmuxClient{opts: []tmuxOption{{"@cac-tmux-margin", "3m"}}}, noServer).Options(context.Background(), OptionPrefix)
	if err != nil || !slices.Equal(opts, []Option{{"@cac-tmux-margin", "3m"}}) {
		t.Errorf("Options = %v, %v; want the client's", opts, err)
	}
	for _, tc := range []struct {
		err     error
		unasked string // the Why of an *Unasked, "" for a failure
	}{
		{fmt.Errorf("list: %w", noServer), "no server runs on server -L work"},
		{&exec.Error{Name: "tmux", Err: exec.ErrNotFound}, "tmux is not installed"},
		{errors.New("timed out"), ""},
	} {
		s := TmuxServer[tmuxOption](tmuxClient{err: tc.err}, noServer)
		_, err := s.Options(context.Background(), OptionPrefix)
		var unasked *Unasked
		switch {
		case tc.unasked != "" && (!errors.As(err, &unasked) || unasked.Why != tc.unasked):
			t.Errorf("Options failing with %v = %v, want unasked: %s", tc.err, err, tc.unasked)
		case tc.unasked == "" && (errors.As(err, &unasked) || err == nil || err.Error() != "tmux options of server -L work: "+tc.err.Error()):
			t.Errorf("Options failing with %v = %v, want a failure naming the server", tc.err, err)
		}
	}
	if name := TmuxServer[tmuxOption](tmuxClient{}, noServer).Name(); name != "server -L work" {
		t.Errorf("Name = %q", name)
	}
}
