package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// The TPM plugin file cac-tmux.tmux, run into private tmux servers as TPM runs it (the file
// executed with $TMUX pointing at the server: here through run-shell). Each run is of a copy
// in a temporary plugin directory, as TPM's clone in ~/.tmux/plugins/cac-tmux: the plugin
// installs a missing binary into its directory's bin/, never into this checkout.

// pluginDir returns a new plugin directory holding copies of the plugin file, of scripts/
// (the installer) and of go.mod, with their modes.
func pluginDir(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("../../cac-tmux.tmux"); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("plugin file ../../cac-tmux.tmux: %v, mode %v; want an executable file", err, fi)
	}
	dir := t.TempDir()
	copyTree(t, "../../", dir, func(rel string, d fs.DirEntry) bool {
		return rel == "cac-tmux.tmux" || rel == "go.mod" || rel == "scripts" || strings.HasPrefix(rel, "scripts/")
	})
	return dir
}

// copyTree copies the files and directories under src that keep selects (by their path
// relative to src) into dst, with their modes.
func copyTree(t *testing.T, src, dst string, keep func(rel string, d fs.DirEntry) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == "." {
			return err
		}
		if !keep(filepath.ToSlash(rel), d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pluginServer starts a private server whose PATH (the environment of run-shell, of status
// jobs and of popups) is dirs, then the directory of tmux, then /usr/bin:/bin.
func pluginServer(t *testing.T, width int, dirs ...string) *tmuxtest.Server {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	s := tmuxtest.Start(t, width, 24)
	path := strings.Join(append(dirs, filepath.Dir(tmux), "/usr/bin", "/bin"), ":")
	s.Tmux(t, "set-environment", "-g", "PATH", path)
	return s
}

// runPlugin runs the plugin file of a new plugin directory in the server, as TPM does.
func runPlugin(t *testing.T, s *tmuxtest.Server) {
	t.Helper()
	runPluginIn(t, s, pluginDir(t))
}

// runPluginIn runs the plugin file of the plugin directory dir in the server. run-shell
// returns when the script ends, after its own tmux calls (not the installer it starts in the
// background): on a loaded machine that takes longer than one call.
func runPluginIn(t *testing.T, s *tmuxtest.Server, dir string) {
	t.Helper()
	c := *s.Client
	c.Timeout = tmuxtest.Scale(30 * time.Second)
	if _, err := c.Run(context.Background(), "run-shell", filepath.Join(dir, "cac-tmux.tmux")); err != nil {
		t.Fatal(err)
	}
}

// binding is the line of `list-keys -T prefix` that binds key, "" when none does. The whole
// table is listed: tmux 3.7 shows `list-keys -T prefix KEY` as a message on a client instead
// of printing it.
func binding(t *testing.T, s *tmuxtest.Server, key string) string {
	t.Helper()
	for line := range strings.Lines(s.Tmux(t, "list-keys", "-T", "prefix")) {
		if f := strings.Fields(line); len(f) > 3 && f[3] == key {
			return line
		}
	}
	return ""
}

// fakeBin writes a cac-tmux that records its arguments in dir/args and returns dir.
func fakeBin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + filepath.Join(dir, "args") + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "cac-tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// attachClient starts an outer private server whose pane runs a client attached to s, so that
// keys reach s through the outer pane and the client's screen is read with capture-pane. It
// returns the outer server and the client's name on s.
func attachClient(t *testing.T, s *tmuxtest.Server, width int) (outer *tmuxtest.Server, client string) {
	t.Helper()
	outer = tmuxtest.Start(t, width, 24, "env", "-u", "TMUX", "tmux", "-S", s.Socket, "attach", "-t", "main")
	tmuxtest.WaitFor(t, 5*time.Second, "a client attached to the server under test", func() bool {
		cs, err := s.Client.Clients(context.Background())
		if err == nil && len(cs) == 1 {
			client = cs[0].Name
		}
		return client != ""
	})
	return outer, client
}

// TestPluginKeyOpensPopup presses prefix + C in a real client: the popup runs exactly
// `cac-tmux popup --client NAME` with that client's name; @cac-tmux-key moves the binding.
func TestPluginKeyOpensPopup(t *testing.T) {
	t.Parallel()
	bin := fakeBin(t)
	s := pluginServer(t, 80, bin)
	runPlugin(t, s)
	keys := binding(t, s, "C")
	if !strings.Contains(keys, `display-popup -E -w 80% -h 60% \"cac-tmux popup --client '#{client_name}'\"`) {
		t.Errorf("prefix C = %q, want the popup", keys)
	}
	outer, client := attachClient(t, s, 80)
	outer.Tmux(t, "send-keys", "-t", "main", "C-b", "C")
	want := "popup --client " + client + "\n"
	var got []byte
	tmuxtest.WaitFor(t, 5*time.Second, "the popup command", func() bool {
		got, _ = os.ReadFile(filepath.Join(bin, "args"))
		return len(got) > 0
	})
	if string(got) != want {
		t.Errorf("the popup ran cac-tmux %q, want %q", got, want)
	}

	s.Tmux(t, "set-option", "-g", "@cac-tmux-key", "M-c")
	runPlugin(t, s)
	if keys := binding(t, s, "M-c"); !strings.Contains(keys, "cac-tmux popup --client") {
		t.Errorf("prefix M-c = %q, want the popup", keys)
	}
	if out := s.Tmux(t, "show-option", "-gv", "status-right"); strings.Contains(out, "cac-tmux") {
		t.Errorf("status-right = %q without @cac-tmux-status on, want it untouched", out)
	}
}

// TestPluginStatusOnce appends the status segment to status-right once, however often the
// plugin runs (a reload of tmux.conf runs it again).
func TestPluginStatusOnce(t *testing.T) {
	t.Parallel()
	s := pluginServer(t, 80, fakeBin(t))
	before := strings.TrimSuffix(s.Tmux(t, "show-option", "-gv", "status-right"), "\n")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-status", "on")
	runPlugin(t, s)
	runPlugin(t, s)
	got := strings.TrimSuffix(s.Tmux(t, "show-option", "-gv", "status-right"), "\n")
	if want := before + " #(cac-tmux status)"; got != want {
		t.Errorf("status-right after two runs = %q, want %q", got, want)
	}
	if got := s.Tmux(t, "show-option", "-gv", "status-right-length"); got != "56\n" {
		t.Errorf("status-right-length = %q, want 56 (40 and room for the segment)", got)
	}
}

// TestPluginAutostart starts a watcher in the session _cac-tmux when none runs, and not again
// when one does: by that session, or by a live @cac_watcher pid (a watcher run elsewhere).
func TestPluginAutostart(t *testing.T) {
	t.Parallel()
	s := pluginServer(t, 80, filepath.Dir(bins.cac))
	s.Tmux(t, "set-option", "-g", "@cac-tmux-autostart", "on")
	s.Tmux(t, "set-option", "-g", "@cac_watcher", "999999999") // a dead pid: no watcher
	runPlugin(t, s)
	tmuxtest.WaitFor(t, 10*time.Second, "the started watcher's @cac_watcher", func() bool {
		pid, err := s.Client.GlobalOption(context.Background(), "@cac_watcher")
		return err == nil && pid != "" && pid != "999999999"
	})
	runPlugin(t, s)
	if got := s.Tmux(t, "list-panes", "-s", "-t", "=_cac-tmux", "-F", "#{pane_current_command}"); got != "cac-tmux\n" {
		t.Errorf("panes of _cac-tmux after a second run = %q, want one watcher", got)
	}

	other := pluginServer(t, 80, filepath.Dir(bins.cac))
	other.Tmux(t, "set-option", "-g", "@cac-tmux-autostart", "on")
	other.Tmux(t, "set-option", "-g", "@cac_watcher", strconv.Itoa(os.Getpid())) // alive
	runPlugin(t, other)
	if out, err := other.Client.Run(context.Background(), "has-session", "-t", "=_cac-tmux"); err == nil {
		t.Errorf("a watcher was started beside a running one: %q", out)
	}
}

// readmeBinding is the README's tmux.conf line for users without TPM.
const readmeBinding = `bind-key C run-shell -C "display-popup -E -w 80% -h 60% \"cac-tmux popup --client '#{client_name}'\""`

// TestPluginREADMEBinding: the README's plain tmux.conf line binds what the plugin binds.
func TestPluginREADMEBinding(t *testing.T) {
	t.Parallel()
	if !strings.Contains(readFile(t, "../../README.md"), readmeBinding+"\n") {
		t.Fatalf("README.md does not show the binding %s", readmeBinding)
	}
	conf := filepath.Join(t.TempDir(), "tmux.conf")
	if err := os.WriteFile(conf, []byte(readmeBinding+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := tmuxtest.Start(t, 80, 24)
	plain.Tmux(t, "source-file", conf)
	withPlugin := pluginServer(t, 80, fakeBin(t))
	runPlugin(t, withPlugin)
	got, want := binding(t, plain, "C"), binding(t, withPlugin, "C")
	if got != want || !strings.Contains(got, "cac-tmux popup") {
		t.Errorf("the README's line binds %q, the plugin %q", got, want)
	}
}

// The install of a missing binary (scripts/install.sh, started by the plugin in the
// background): a release served on loopback through $CAC_TMUX_RELEASE_URL, else a build with
// the go on PATH, else the one command to run.

// releaseVersion is the version of the test releases; "v"+releaseVersion is the tag of a
// plugin checkout of that release.
const releaseVersion = "0.1.0-test"

// releaseName is the archive `make dist` makes for this platform.
var releaseName = fmt.Sprintf("cac-tmux_%s_%s_%s.tar.gz", releaseVersion, runtime.GOOS, runtime.GOARCH)

// releaseArchive is a release archive as `make dist` makes it: the cac-tmux TestMain built,
// LICENSE and README.md, at its top. Made once.
var releaseArchive = sync.OnceValues(func() ([]byte, error) {
	bin, err := os.ReadFile(bins.cac)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name string
		mode int64
		body []byte
	}{{"cac-tmux", 0o755, bin}, {"LICENSE", 0o644, []byte("the license\n")}, {"README.md", 0o644, []byte("# cac-tmux\n")}} {
		h := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
})

func sha256hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// releaseServer serves release files by URL path on loopback, 404 for any other path, and
// records every path asked for.
type releaseServer struct {
	*httptest.Server
	mu    sync.Mutex
	asked []string
}

// serveReleases starts a releaseServer of files (URL path → body) and points the server s's
// plugin at it ($CAC_TMUX_RELEASE_URL in its global environment; no proxy for loopback).
func serveReleases(t *testing.T, s *tmuxtest.Server, files map[string][]byte) *releaseServer {
	t.Helper()
	r := &releaseServer{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.asked = append(r.asked, req.URL.Path)
		r.mu.Unlock()
		body, ok := files[req.URL.Path]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(r.Close)
	s.Tmux(t, "set-environment", "-g", "CAC_TMUX_RELEASE_URL", r.URL)
	s.Tmux(t, "set-environment", "-g", "no_proxy", "127.0.0.1")
	return r
}

// paths are the URL paths asked for so far.
func (r *releaseServer) paths() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.asked, " ")
}

// installHint is the global @cac_install_hint, "" when unset.
func installHint(t *testing.T, s *tmuxtest.Server) string {
	t.Helper()
	return strings.TrimSuffix(s.Tmux(t, "show-option", "-gqv", "@cac_install_hint"), "\n")
}

// waitBound waits until prefix C runs the popup of the binary dir/bin/cac-tmux (the plugin run
// again by the installer), and fails at once with the installer's hint when it gives up.
func waitBound(t *testing.T, s *tmuxtest.Server, dir string, timeout time.Duration, what string) {
	t.Helper()
	want := `\"'` + filepath.Join(dir, "bin", "cac-tmux") + `' popup --client`
	tmuxtest.WaitFor(t, timeout, what, func() bool {
		if hint := installHint(t, s); hint != "" {
			t.Fatalf("the installer gave up: %s\nlog: %s", hint, readFile(t, filepath.Join(dir, "bin", "install.log")))
		}
		return strings.Contains(binding(t, s, "C"), want)
	})
}

// waitHint waits for the installer's hint and returns it.
func waitHint(t *testing.T, s *tmuxtest.Server) string {
	t.Helper()
	var hint string
	tmuxtest.WaitFor(t, 60*time.Second, "@cac_install_hint", func() bool {
		hint = installHint(t, s)
		return hint != ""
	})
	return hint
}

// waitInstallerDone waits until the installer the plugin of dir started has ended (its lock
// bin/.install removed): call it after an outcome only the installer gives.
func waitInstallerDone(t *testing.T, dir string) {
	t.Helper()
	tmuxtest.WaitFor(t, 30*time.Second, "the installer's end", func() bool {
		_, err := os.Stat(filepath.Join(dir, "bin", ".install"))
		return os.IsNotExist(err)
	})
}

// binFiles lists dir/bin.
func binFiles(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(dir, "bin"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// gitTag makes dir a git checkout of one commit tagged tag, as TPM clones a release.
func gitTag(t *testing.T, dir, tag string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "commit", "-qm", "plugin"},
		{"tag", tag},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
}

// TestPluginFindsBinary: the binary is @cac-tmux-bin, else cac-tmux on PATH, else the one the
// plugin installed in its directory's bin/. With any of them the plugin binds its key to it,
// downloads and builds nothing, and unsets the hint an install that failed before left.
func TestPluginFindsBinary(t *testing.T) {
	t.Parallel()
	onPath, elsewhere := fakeBin(t), fakeBin(t)
	for _, tc := range []struct {
		name, path, option, want string
	}{
		{"on PATH, also installed", onPath, "", `\"cac-tmux popup --client`},
		{"installed only", "", "", `\"'PLUGIN/bin/cac-tmux' popup --client`},
		{"@cac-tmux-bin, also on PATH and installed", onPath, filepath.Join(elsewhere, "cac-tmux"), `\"'` + filepath.Join(elsewhere, "cac-tmux") + `' popup --client`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *tmuxtest.Server
			if tc.path != "" {
				s = pluginServer(t, 80, tc.path)
			} else {
				s = pluginServer(t, 80)
			}
			rel := serveReleases(t, s, nil)
			if tc.option != "" {
				s.Tmux(t, "set-option", "-g", "@cac-tmux-bin", tc.option)
			}
			s.Tmux(t, "set-option", "-g", "@cac_install_hint", "cac-tmux: run: go install …")
			dir := pluginDir(t)
			if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "bin", "cac-tmux"), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			runPluginIn(t, s, dir)
			want := strings.ReplaceAll(tc.want, "PLUGIN", dir)
			if got := binding(t, s, "C"); !strings.Contains(got, want) {
				t.Errorf("prefix C = %q, want the popup of %s", got, want)
			}
			if got := binFiles(t, dir); got != "cac-tmux" {
				t.Errorf("the plugin's bin/ holds %q, want only the cac-tmux put there", got)
			}
			if got := rel.paths(); got != "" {
				t.Errorf("the plugin asked the release server for %s", got)
			}
			if hint := installHint(t, s); hint != "" {
				t.Errorf("@cac_install_hint = %q", hint)
			}
		})
	}
}

// TestPluginDownloadsRelease: without a binary, the plugin of a checkout tagged v0.1.0-test
// downloads that release's checksums.txt, finds there the archive of this platform and its
// sha256, downloads and verifies it, installs its cac-tmux into the plugin's bin/ and binds its
// key to it. No go on PATH: only the release can install it.
func TestPluginDownloadsRelease(t *testing.T) {
	t.Parallel()
	archive, err := releaseArchive()
	if err != nil {
		t.Fatal(err)
	}
	s := pluginServer(t, 80)
	dl := "/download/v" + releaseVersion + "/"
	sums := strings.Repeat("0", 64) + "  cac-tmux_" + releaseVersion + "_plan9_amd64.tar.gz\n" + sha256hex(archive) + "  " + releaseName + "\n"
	rel := serveReleases(t, s, map[string][]byte{dl + "checksums.txt": []byte(sums), dl + releaseName: archive})
	dir := pluginDir(t)
	gitTag(t, dir, "v"+releaseVersion)
	runPluginIn(t, s, dir)
	waitBound(t, s, dir, 60*time.Second, "the key bound to the downloaded binary")
	waitInstallerDone(t, dir)
	bin, err := os.ReadFile(bins.cac)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "bin", "cac-tmux")); err != nil || !bytes.Equal(got, bin) {
		t.Errorf("bin/cac-tmux: %v; want the archive's cac-tmux (%d bytes), got %d bytes", err, len(bin), len(got))
	}
	if fi, err := os.Stat(filepath.Join(dir, "bin", "cac-tmux")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("bin/cac-tmux: %v, mode %v; want an executable", err, fi)
	}
	if got := binFiles(t, dir); got != "cac-tmux install.log" {
		t.Errorf("the plugin's bin/ holds %q, want cac-tmux and install.log", got)
	}
	if got, want := rel.paths(), dl+"checksums.txt "+dl+releaseName; got != want {
		t.Errorf("asked the release server for %q, want %q", got, want)
	}
	if log := readFile(t, filepath.Join(dir, "bin", "install.log")); !strings.Contains(log, releaseName+", sha256 verified") {
		t.Errorf("install.log = %q, want the verified archive", log)
	}
}

// TestPluginRefusesWrongChecksum: an archive whose sha256 is not the one checksums.txt (the
// latest release's: the plugin checkout has no tag) gives is refused, with the one command
// to run, and nothing is installed or bound.
func TestPluginRefusesWrongChecksum(t *testing.T) {
	t.Parallel()
	archive, err := releaseArchive()
	if err != nil {
		t.Fatal(err)
	}
	s := pluginServer(t, 80)
	dl := "/latest/download/"
	bad := sha256hex([]byte("another archive"))
	rel := serveReleases(t, s, map[string][]byte{dl + "checksums.txt": []byte(bad + "  " + releaseName + "\n"), dl + releaseName: archive})
	dir := pluginDir(t)
	runPluginIn(t, s, dir)
	hint := waitHint(t, s)
	waitInstallerDone(t, dir)
	for _, want := range []string{
		"cac-tmux: refused " + rel.URL + dl + releaseName + ": its sha256 is " + sha256hex(archive) + ", checksums.txt says " + bad + "; nothing installed",
		"or run: cd '" + dir + "' && GOBIN='" + filepath.Join(dir, "bin") + "' go install ./cmd/cac-tmux",
	} {
		if !strings.Contains(hint, want) {
			t.Errorf("@cac_install_hint = %q, want %q in it", hint, want)
		}
	}
	if got := binFiles(t, dir); got != "install.log" {
		t.Errorf("the plugin's bin/ holds %q, want only install.log", got)
	}
	if mode := s.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_in_mode}"); mode != "0\n" {
		t.Errorf("the pane is in a mode after the installer (%q): %q", mode, s.Tmux(t, "capture-pane", "-p", "-t", "main"))
	}
	if got := binding(t, s, "C"); strings.Contains(got, "cac-tmux") {
		t.Errorf("prefix C is bound without a binary: %q", got)
	}
	if got, want := rel.paths(), dl+"checksums.txt "+dl+releaseName; got != want {
		t.Errorf("asked the release server for %q, want %q", got, want)
	}
}

// TestPluginBuildsWithGo: without a binary nor a release (404), the plugin builds cac-tmux
// with the go on PATH in its directory (a copy of this module's sources) and binds its key to
// it.
func TestPluginBuildsWithGo(t *testing.T) {
	if testing.Short() {
		t.Skip("go build of cac-tmux in a plugin directory (minutes on a cold build cache)")
	}
	t.Parallel()
	goTool, err := exec.LookPath("go") // go test puts $GOROOT/bin first in PATH
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, "../../", dir, func(rel string, d fs.DirEntry) bool {
		name := d.Name()
		if d.IsDir() {
			return !strings.HasPrefix(name, ".") && name != "testdata" && rel != "bin" && rel != "dist" && rel != "results"
		}
		return rel == "go.mod" || rel == "go.sum" || rel == "cac-tmux.tmux" || strings.HasPrefix(rel, "scripts/") ||
			strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
	})
	s := pluginServer(t, 80, filepath.Dir(goTool))
	rel := serveReleases(t, s, nil)
	runPluginIn(t, s, dir)
	waitBound(t, s, dir, 8*time.Minute, "the key bound to the binary built with go")
	waitInstallerDone(t, dir)
	if out, err := exec.Command(filepath.Join(dir, "bin", "cac-tmux"), "version").Output(); err != nil || !strings.HasPrefix(string(out), "cac-tmux ") {
		t.Errorf("bin/cac-tmux version: %q, %v", out, err)
	}
	if got, want := rel.paths(), "/latest/download/checksums.txt"; got != want {
		t.Errorf("asked the release server for %q, want %q", got, want)
	}
	if log := readFile(t, filepath.Join(dir, "bin", "install.log")); !strings.Contains(log, "built with go") {
		t.Errorf("install.log = %q, want the build", log)
	}
}

// TestPluginNoBinary: without a binary, a release (404) or a go on PATH, the plugin shows the
// attached client the one command to run until a key is pressed, keeps it in
// @cac_install_hint and binds nothing (prefix C stays tmux's customize-mode); so it does
// with a go older than go.mod's go line; and with an @cac-tmux-bin that names no executable,
// then without trying to install anything.
func TestPluginNoBinary(t *testing.T) {
	t.Parallel()
	oldGo := t.TempDir()
	if err := os.WriteFile(filepath.Join(oldGo, "go"), []byte("#!/bin/sh\necho 'go version go1.22.5 "+runtime.GOOS+"/"+runtime.GOARCH+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := pluginServer(t, 250)
	path := strings.TrimPrefix(strings.TrimSpace(s.Tmux(t, "show-environment", "-g", "PATH")), "PATH=")
	for dir := range strings.SplitSeq(path, ":") {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			t.Skipf("go is in %s, on the server's PATH %s", dir, path)
		}
	}
	rel := serveReleases(t, s, nil)
	s.Tmux(t, "set-option", "-g", "@cac-tmux-status", "on")
	outer, _ := attachClient(t, s, 250)
	dir := pluginDir(t)
	gobin := "cd '" + dir + "' && GOBIN='" + filepath.Join(dir, "bin") + "' go install ./cmd/cac-tmux"
	noRelease := "no latest release at " + rel.URL + "/latest/download/checksums.txt (curl: (22) "
	for _, tc := range []struct {
		name, path, bin, screen string
		want                    []string
	}{
		{"no go", path, "", gobin, []string{"cac-tmux: run: " + gobin + " (Go 1.26", noRelease, "404", "; go is not on the tmux server's PATH"}},
		{"old go", oldGo + ":" + path, "", gobin, []string{"cac-tmux: run: " + gobin, noRelease, "; the go on PATH (" + filepath.Join(oldGo, "go") + ", go1.22.5) is older than go.mod's 1.26"}},
		{"@cac-tmux-bin", path, "/nonexistent/cac-tmux", "cac-tmux: no cac-tmux binary at /nonexistent/cac-tmux (@cac-tmux-bin)",
			[]string{"cac-tmux: no cac-tmux binary at /nonexistent/cac-tmux (@cac-tmux-bin); install it with: make -C '" + dir + "' build"}},
	} {
		s.Tmux(t, "set-environment", "-g", "PATH", tc.path)
		s.Tmux(t, "set-option", "-gu", "@cac_install_hint")
		if tc.bin != "" {
			s.Tmux(t, "set-option", "-g", "@cac-tmux-bin", tc.bin)
		}
		asked := rel.paths()
		runPluginIn(t, s, dir)
		hint := waitHint(t, s)
		outer.WaitScreen(t, "main", tc.screen)
		for _, want := range tc.want {
			if !strings.Contains(hint, want) {
				t.Errorf("%s: @cac_install_hint = %q, want %q in it", tc.name, hint, want)
			}
		}
		// The hint is no setting: a watcher started once the binary is there is not refused.
		if code, out, errOut := cacBin(t, t.TempDir(), "config", "check", "-S", s.Socket); code != 0 || errOut != "" {
			t.Errorf("%s: config check with the hint set = %d, stderr %q, stdout\n%s", tc.name, code, errOut, out)
		}
		if tc.bin == "" {
			waitInstallerDone(t, dir)
			// The installer ends with status 0: tmux shows another in view mode on the pane.
			if mode := s.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_in_mode}"); mode != "0\n" {
				t.Errorf("%s: the pane is in a mode after the installer (%q): %q", tc.name, mode, s.Tmux(t, "capture-pane", "-p", "-t", "main"))
			}
			if got := rel.paths(); got == asked {
				t.Errorf("%s: the plugin asked the release server for nothing", tc.name)
			}
		} else if got := rel.paths(); got != asked {
			t.Errorf("%s: the plugin asked the release server for %s", tc.name, strings.TrimPrefix(got, asked))
		}
		outer.Tmux(t, "send-keys", "-t", "main", "Escape") // the message stays until a key
		// The key must have reached the client before the next message, or it clears that one.
		tmuxtest.WaitFor(t, 10*time.Second, "the message dismissed", func() bool {
			screen, err := outer.Client.Capture(context.Background(), "main")
			return err == nil && !strings.Contains(screen, "cac-tmux: ")
		})
		if keys := binding(t, s, "C"); strings.Contains(keys, "cac-tmux") {
			t.Errorf("%s: prefix C is bound without a binary: %q", tc.name, keys)
		}
		if out := s.Tmux(t, "show-option", "-gv", "status-right"); strings.Contains(out, "cac-tmux") {
			t.Errorf("%s: status-right = %q without a binary, want it untouched", tc.name, out)
		}
		if got := binFiles(t, dir); got != "" && got != "install.log" {
			t.Errorf("%s: the plugin's bin/ holds %q, want nothing installed", tc.name, got)
		}
	}
}
