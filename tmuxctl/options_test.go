package tmuxctl_test

import (
	"context"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

func TestParseUserOptions(t *testing.T) {
	out := "activity-action other\n" +
		"status-format[0] \"#[align=left]\"\n" +
		"@cac-tmux-caf \"café ☕\"\n" +
		"@cac-tmux-empty ''\n" +
		"@cac-tmux-esc a\\033b\n" +
		"@cac-tmux-hash \"#{x} #[fg=red]\"\n" +
		"@cac-tmux-margin 10s\n" +
		"@cac-tmux-message \"go on \\\"now\\\" \\$HOME \\\\ ;x\"\n" +
		"@cac-tmux-nl a\\nb\\tc\\r\\a\\b\\v\\f\n" +
		"@cac-tmux-sq \"it's\"\n" +
		"@cac-tmux-dq 'a\"b\\\\c'\n" +
		"@cac-tmux-tilde \\~x\n" +
		"@cac-tmux-tilde2 \"\\~ x\"\n" +
		"@cac-tmux-one \\#\n" +
		"@cac-tmux-bad caf\\351\n" +
		"@cac-tmux-nul a\\0b\n" +
		"@cac-tmux-novalue\n" +
		"@other-plugin x\n" +
		"@cac_watcher 123\n"
	got, err := tmuxctl.ParseUserOptions(out, "@cac-tmux-")
	want := []tmuxctl.UserOption{
		{"@cac-tmux-caf", "café ☕"},
		{"@cac-tmux-empty", ""},
		{"@cac-tmux-esc", "a\x1bb"},
		{"@cac-tmux-hash", "#{x} #[fg=red]"},
		{"@cac-tmux-margin", "10s"},
		{"@cac-tmux-message", `go on "now" $HOME \ ;x`},
		{"@cac-tmux-nl", "a\nb\tc\r\a\b\v\f"},
		{"@cac-tmux-sq", "it's"},
		{"@cac-tmux-dq", `a"b\c`},
		{"@cac-tmux-tilde", "~x"},
		{"@cac-tmux-tilde2", "~ x"},
		{"@cac-tmux-one", "#"},
		{"@cac-tmux-bad", "caf\xe9"},
		{"@cac-tmux-nul", "a\x00b"},
		{"@cac-tmux-novalue", ""},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseUserOptions() = %q, %v\nwant %q", got, err, want)
	}
	if got, err := tmuxctl.ParseUserOptions(out, "@"); err != nil || len(got) != len(want)+2 {
		t.Errorf("ParseUserOptions(@) = %d options, %v; want %d", len(got), err, len(want)+2)
	}
	for _, bad := range []string{"@cac-tmux-x a\\\n", "@cac-tmux-x \\777\n"} {
		if _, err := tmuxctl.ParseUserOptions(bad, "@cac-tmux-"); err == nil || !strings.Contains(err.Error(), "tmuxctl: show-options line") {
			t.Errorf("ParseUserOptions(%q) = %v, want an error naming the line", bad, err)
		}
	}
}

// TestUserOptionsRoundTrip sets global user options to every byte, quotes and escapes, and
// reads them back from a real tmux: what tmux prints is read as what was set.
func TestUserOptionsRoundTrip(t *testing.T) {
	eachTransport(t, func(t *testing.T, control bool) {
		s := start(t, control, 80, 24)
		ctx := context.Background()
		values := []string{"10s", "", " ", "~", "~x", "x~", "~ x", "#", "\"", "'", "$", `\`, "a b", `a"b\c`, "it's",
			"#{pane_id} #[fg=red]", "café ☕", "caf\xe9", "a\nb", "a;b", "{x}", "%", "go on \"now\" $HOME \\ ;x", "\t"}
		var all strings.Builder
		for b := 1; b < 128; b++ {
			all.WriteByte(byte(b))
		}
		values = append(values, "a"+all.String()+"b", "\x1b[2J\x7f\u2028")
		var want []tmuxctl.UserOption
		for i, v := range values {
			name := "@cac-tmux-t" + string(rune('a'+i/26)) + string(rune('a'+i%26))
			if _, err := s.Client.Run(ctx, "set-option", "-g", name, v); err != nil { // as a .tmux.conf would, no escaping of ours
				t.Fatalf("set %s %q: %v", name, v, err)
			}
			want = append(want, tmuxctl.UserOption{Name: name, Value: v})
		}
		s.Tmux(t, "set-option", "-g", "@other-x", "1")
		got, err := s.Client.UserOptions(ctx, "@cac-tmux-")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			for i := range max(len(got), len(want)) {
				if i >= len(got) || i >= len(want) || got[i] != want[i] {
					t.Errorf("option %d: got %q, want %q", i, at(got, i), at(want, i))
				}
			}
		}
	})
}

func at(o []tmuxctl.UserOption, i int) tmuxctl.UserOption {
	if i < len(o) {
		return o[i]
	}
	return tmuxctl.UserOption{}
}

func TestVersionAndServerInfo(t *testing.T) {
	s := start(t, false, 80, 24)
	ctx := context.Background()
	v, err := s.Client.Version(ctx)
	// "tmux 3.3a", "tmux next-3.8", "tmux openbsd-7.6": one word after "tmux".
	if err != nil || !strings.HasPrefix(v, "tmux ") || len(strings.Fields(v)) != 2 {
		t.Errorf("Version() = %q, %v; want tmux and a version", v, err)
	}
	info, err := s.Client.ServerInfo(ctx)
	if err != nil || "tmux "+info.Version != v || info.PID <= 0 || info.Socket != s.Socket {
		t.Errorf("ServerInfo() = %+v, %v; want version %q, a pid and socket %s", info, err, v, s.Socket)
	}
	if p, err := os.FindProcess(info.PID); err != nil || p == nil {
		t.Errorf("server pid %d: %v", info.PID, err)
	}
	none := &tmuxctl.Client{SocketPath: s.Dir + "/none"}
	if _, err := none.ServerInfo(ctx); err == nil {
		t.Errorf("ServerInfo() on no server: no error")
	}
	if _, err := none.UserOptions(ctx, "@cac-tmux-"); err == nil {
		t.Errorf("UserOptions() on no server: no error")
	}
	if v, err := none.Version(ctx); err != nil || !strings.HasPrefix(v, "tmux ") {
		t.Errorf("Version() without a server = %q, %v; want the binary's version", v, err)
	}
}

// FuzzParseUserOptions: any show-options output is read without a panic, into options of the
// prefix only, or refused with an error naming its line.
func FuzzParseUserOptions(f *testing.F) {
	for _, seed := range []string{"@cac-tmux-a 1\n", "@cac-tmux-a \"x \\\" \\$\"\n@cac-tmux-b ''\n", "@cac-tmux-c a\\0\\033\\\n",
		"@cac-tmux-d '\n", "status on\n@cac-tmux-e \\~\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, out string) {
		opts, err := tmuxctl.ParseUserOptions(out, "@cac-tmux-")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "tmuxctl: show-options line ") {
				t.Fatalf("ParseUserOptions(%q) = %v", out, err)
			}
			return
		}
		for _, o := range opts {
			if !strings.HasPrefix(o.Name, "@cac-tmux-") || strings.ContainsAny(o.Name, " \n") {
				t.Fatalf("ParseUserOptions(%q) = %q", out, opts)
			}
		}
	})
}

// TestProbe: what Probe finds agrees with what the server does: a listing filters, fields come
// back exactly whatever the escaping, pane_last_output_time has a value after output exactly
// where it is said to exist, and control mode is refused once destroy-unattached is on.
func TestProbe(t *testing.T) {
	s := tmuxtest.Start(t, 80, 24, "sh", "-c", "echo out; exec cat")
	s.WaitScreen(t, "%0", "out")
	ctx := context.Background()
	k, err := s.Client.Probe(ctx)
	if err != nil || !k.Filter || k.Version() == "" || k.Control != nil {
		t.Fatalf("Probe = %+v, %v; want a version, the filter, control mode", k, err)
	}
	raw := s.Tmux(t, "display-message", "-p", "\x1f")
	if (k.Escaping == tmuxctl.Vis) != (raw == `\037`+"\n") {
		t.Errorf("Escaping = %v, but the server prints the separator as %q", k.Escaping, raw)
	}
	last := s.Tmux(t, "display-message", "-p", "-t", "%0", "[#{pane_last_output_time}]")
	if k.LastOutput != (last != "[]\n") {
		t.Errorf("LastOutput = %v, but #{pane_last_output_time} after output reads %q", k.LastOutput, last)
	}
	keep, err := s.Client.Dial(ctx) // attached, or the session would go at once
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	s.Tmux(t, "set-option", "-t", "main", "destroy-unattached", "on")
	if k, err := s.Client.Probe(ctx); err != nil || k.Control == nil {
		t.Errorf("Probe with destroy-unattached on = %+v, %v; want control mode refused", k, err)
	}
}

// TestClaimGlobal: a claim wins only over the value it names, and of many clients claiming the
// same unset option at once exactly one wins, on every transport (one watcher per server
// whatever path reaches it).
func TestClaimGlobal(t *testing.T) {
	eachTransport(t, func(t *testing.T, control bool) {
		s := start(t, control, 80, 24)
		ctx := context.Background()
		steps := []struct{ old, value, want string }{
			{"", "123", "123"},
			{"", "456", "123"},
			{"999", "456", "123"},
			{"123", "456", "456"},
			{"456", "", ""},
		}
		for _, st := range steps {
			got, err := s.Client.ClaimGlobal(ctx, "@cac_claim", st.old, st.value)
			if err != nil || got != st.want {
				t.Fatalf("ClaimGlobal(%q → %q) = %q, %v, want %q", st.old, st.value, got, err, st.want)
			}
		}
		for _, bad := range [][2]string{{"@cac_claim", "1}"}, {"@cac_claim", "1,2"}, {"status", "1"}, {"@a b", "1"}} {
			if _, err := s.Client.ClaimGlobal(ctx, bad[0], "", bad[1]); err == nil {
				t.Errorf("ClaimGlobal(%q, %q) took it", bad[0], bad[1])
			}
		}
		if v := s.Tmux(t, "show-options", "-gqv", "@cac_claim"); strings.TrimSpace(v) != "" {
			t.Errorf("a refused claim set %q", v)
		}
	})
	s := tmuxtest.Start(t, 80, 24)
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			c := &tmuxctl.Client{SocketPath: s.Socket} // a tmux process of its own, like another watcher
			v, err := c.ClaimGlobal(context.Background(), "@cac_race", "", strconv.Itoa(100+i))
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	won := 0
	for i, v := range got {
		if v != got[0] {
			t.Errorf("claimant %d read %q, claimant 0 %q: not one winner", i, v, got[0])
		}
		if v == strconv.Itoa(100+i) {
			won++
		}
	}
	if won != 1 {
		t.Errorf("%d claims won, want exactly 1: %q", won, got)
	}
}
