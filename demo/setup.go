package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// headlessWidth and headlessHeight are the window's size when no terminal is attached.
const (
	headlessWidth  = 160
	headlessHeight = 50
)

// watcherRows is the height of the watcher's pane under the sessions: its header, table and
// one event at least, a quarter of the window at most 16 rows.
func watcherRows(height int) int { return min(max(height/4, 11), 16) }

// tmuxConf is the private server's whole configuration (the user's ~/.tmux.conf is not
// read): no window list, the demo's progress on the right of the status line, each pane's
// title, published state and last event on its border, dead panes kept so that a failure can be read, and
// C-q to leave without the prefix (which an outer tmux would take).
const tmuxConf = `set -g exit-empty on
set -g remain-on-exit on
set -g history-limit 100
set -g default-shell /bin/sh
set -g mouse off
set -g status-interval 1
set -g status-left "#[bold] cac-tmux demo #[default]"
set -g status-left-length 20
set -g status-right "#{@demo} "
set -g status-right-length 160
set -g window-status-format ""
set -g window-status-current-format ""
set -g pane-border-status top
# Each border starts with the target the watcher's table shows for the pane.
set -g pane-border-format " #{session_name}:#{window_index}.#{pane_index} #{pane_title}#{?@cac_state, [#{@cac_state}],}#{?@demo_last, · #{@demo_last},} "
set -g allow-rename off
set -g automatic-rename off
set -g set-titles off
bind -n C-q detach-client
`

// setUp makes the temporary directory, the claude link and the private server with its panes.
// The world it returns, with an error too, is the caller's to tear down.
func setUp(ctx context.Context, o Options) (*world, error) {
	dir, err := os.MkdirTemp("", "cacdemo")
	if err != nil {
		return nil, fmt.Errorf("demo: temporary directory: %w", err)
	}
	w := &world{o: o, dir: dir, panes: map[string]string{}, logs: map[string]*tail{}, titles: map[string]string{},
		tmux: &tmuxctl.Client{SocketPath: filepath.Join(dir, "s"), Bin: o.tmux}}
	for _, sub := range []string{"state", "run", "config", "claude-config", "codex-home"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			return w, fmt.Errorf("demo: temporary directory %s: %w", sub, err)
		}
	}
	claude := filepath.Join(dir, "claude")
	for _, link := range []string{claude, filepath.Join(dir, "codex")} {
		if err := linkOrCopy(o.Exe, link); err != nil {
			return w, err
		}
	}
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte(tmuxConf), 0o600); err != nil {
		return w, fmt.Errorf("demo: write %s: %w", conf, err)
	}
	w.plan = newPlan(o.clock.Now())
	w.all = sessions
	if o.Codex {
		w.all = append(append([]session(nil), sessions...), codexSession)
	}
	w.judge = newJudge(w.plan, w.all)
	for _, s := range w.all {
		w.logs[s.key] = &tail{path: w.logPath(s.key)}
	}
	if err := w.start(ctx, conf, claude); err != nil {
		return w, fmt.Errorf("demo: start the private tmux server: %w", err)
	}
	return w, nil
}

// linkOrCopy makes the file to a hard link to from, or a copy of it where no link can be made
// (another file system).
func linkOrCopy(from, to string) error {
	if os.Link(from, to) == nil {
		return nil
	}
	src, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("demo: copy %s: %w", from, err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return fmt.Errorf("demo: copy %s: %w", from, err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("demo: copy %s to %s: %w", from, to, err)
	}
	if err := dst.Close(); err != nil {
		return fmt.Errorf("demo: copy %s to %s: %w", from, to, err)
	}
	return nil
}

// start starts the server with the sessions in a grid, (a) (b) over (c) (d), the watcher in a
// pane under them, which is the active one (keys typed go to it, not to a session), and with
// Options.Codex, Codex's (e) in a full-height column on their right.
func (w *world) start(ctx context.Context, conf, claude string) error {
	width, height := headlessWidth, headlessHeight
	if w.o.Codex {
		width += 1 + codexWidth
	}
	if t := w.o.Term; t != nil {
		width, height = t.Width, t.Height-1 // the status line
	}
	sim := func(s session) []string {
		return append([]string{"-e", "CLAUDE_CONFIG_DIR=" + filepath.Join(w.dir, "claude-config"), claude, SimCommand}, s.args(w.plan, w.logPath(s.key))...)
	}
	first := []string{"-f", conf, "new-session", "-d", "-s", "demo", "-n", "demo", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height)}
	a, err := w.pane(ctx, first, append(sim(sessions[0]), tmuxctl.KeepSize("demo", width, height)...))
	if err != nil {
		return err
	}
	ids := []string{a}
	for _, s := range []struct {
		split  []string
		target int
	}{{[]string{"-h"}, 0}, {[]string{"-v"}, 0}, {[]string{"-v"}, 1}} {
		id, err := w.pane(ctx, append([]string{"split-window", "-t", ids[s.target]}, s.split...), sim(sessions[len(ids)]))
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	watch, err := w.pane(ctx, []string{"split-window", "-v", "-f", "-l", strconv.Itoa(watcherRows(height)), "-t", a}, w.watcherCommand())
	if err != nil {
		return err
	}
	w.panes[watch] = ""
	if w.o.Codex {
		// Last, so that its pane keeps the size the simulator drew its first frame for: on tmux
		// next-3.8 the frame of a Codex pane split before the watcher's kept its old height's
		// layout, its stop cut off above (seen in the demo, not explained).
		codex := append([]string{"-e", "CODEX_HOME=" + filepath.Join(w.dir, "codex-home"), filepath.Join(w.dir, "codex"), SimCodexCommand},
			codexSession.args(w.plan, w.logPath(codexSession.key))...)
		id, err := w.pane(ctx, []string{"split-window", "-h", "-f", "-l", strconv.Itoa(codexWidth), "-t", a}, codex)
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	for i, s := range w.all {
		w.panes[ids[i]], w.titles[s.key] = s.key, ids[i]
	}
	for _, s := range w.all {
		if _, err := w.tmux.Run(ctx, "select-pane", "-t", w.titles[s.key], "-T", s.title); err != nil {
			return err
		}
	}
	_, err = w.tmux.Run(ctx, "select-pane", "-t", watch, "-T", "the real watcher: cac-tmux watch --margin "+margin.String()+" --interval "+interval.String())
	return err
}

// watcherCommand runs the real watcher on the private server, its configuration, state and
// lock in the temporary directory.
func (w *world) watcherCommand() []string {
	env := []string{"XDG_CONFIG_HOME=config", "XDG_STATE_HOME=state", "XDG_RUNTIME_DIR=run"}
	var args []string
	for _, kv := range env {
		name, sub, _ := strings.Cut(kv, "=")
		args = append(args, "-e", name+"="+filepath.Join(w.dir, sub))
	}
	return append(args, w.o.Exe, "watch", "-S", w.tmux.SocketPath, "--margin", margin.String(), "--interval", interval.String())
}

// pane runs a tmux command that makes a pane running argv (after its -e flags) and returns
// the pane's id.
func (w *world) pane(ctx context.Context, cmd, argv []string) (string, error) {
	args := append(append(append([]string(nil), cmd...), "-P", "-F", "#{pane_id}"), argv...)
	out, err := w.tmux.Run(ctx, args...)
	return strings.TrimSpace(out), err
}

// told shows a session's last event on its pane's border.
func (w *world) told(ctx context.Context, e event) {
	if id := w.titles[e.Key]; id != "" {
		w.tmux.SetPaneOption(ctx, id, "@demo_last", e.Text)
	}
}

// tearDown kills the server, waits for every process of it to end (the watcher saves its
// state on the way out) and removes the temporary directory.
func (w *world) tearDown() {
	ctx := context.Background()
	pids := w.processes(ctx)
	if _, err := w.tmux.Run(ctx, "kill-server"); err != nil && !errors.Is(err, tmuxctl.ErrNoServer) {
		fmt.Fprintf(w.o.Err, "cac-tmux demo: %v\n", err)
	}
	for i := 0; i < 100 && anyAlive(pids); i++ {
		w.o.clock.Sleep(ctx, 50*time.Millisecond)
	}
	if err := os.RemoveAll(w.dir); err != nil {
		fmt.Fprintf(w.o.Err, "cac-tmux demo: remove %s: %v\n", w.dir, err)
	}
}

// processes are the server's process, its panes' and its clients'.
func (w *world) processes(ctx context.Context) []int {
	var pids []int
	for _, args := range [][]string{{"display-message", "-p", "#{pid}"}, {"list-panes", "-a", "-F", "#{pane_pid}"}, {"list-clients", "-F", "#{client_pid}"}} {
		out, err := w.tmux.Run(ctx, args...)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(out) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
