package simcodex

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// recorder writes Codex 0.171.0's records as its app-server daemon does (the formats copied
// from a run of the real one against ../shared/tools/codex's mock), under $CODEX_HOME only,
// so a simulated session never writes into a real one's directory.
type recorder struct {
	home, rollout, thread string
	ordinal               int
	turn                  string // the running turn's id
	daemon                *exec.Cmd
	hangUp                io.Closer // the daemon's stdin: closing it ends the daemon
}

// newRecorder starts the records of a session begun at now in cwd: the stand-in daemon and
// its daemon.pid, and the rollout's session_meta. The rollout is named in the daemon's zone.
func newRecorder(cwd string, daemonZone *time.Location, now time.Time, launcher []string) (*recorder, error) {
	home := os.Getenv("CODEX_HOME")
	if home == "" {
		return nil, errors.New("simcodex: --records: CODEX_HOME is not set")
	}
	r := &recorder{home: home, thread: uuid7(now)}
	local := now.In(daemonZone)
	r.rollout = filepath.Join(home, "sessions", local.Format("2006/01/02"), "rollout-"+local.Format("2006-01-02T15-04-05")+"-"+r.thread+".jsonl")
	if err := r.startDaemon(daemonZone, now, launcher); err != nil {
		return nil, err
	}
	r.row(now, "session_meta", map[string]any{"session_id": r.thread, "id": r.thread, "timestamp": stamp(now), "cwd": cwd,
		"runtime_workspace_roots": []string{cwd}, "originator": "codex-tui", "cli_version": Version, "source": "vscode",
		"thread_source": "user", "model_provider": "openai", "base_instructions": map[string]any{"text": "You are Codex (simulated)."},
		"history_mode": "paginated"})
	return r, nil
}

// stamp is a record's timestamp: UTC to the millisecond.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// uuid7 is a version 7 UUID of t (Codex's thread and turn ids are).
func uuid7(t time.Time) string {
	var b [16]byte
	rand.Read(b[6:])
	binary.BigEndian.PutUint64(b[:8], uint64(t.UnixMilli())<<16|uint64(b[6])<<8|uint64(b[7]))
	b[6], b[8] = 0x70|b[6]&0x0f, 0x80|b[8]&0x3f
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// row appends one line to the rollout; errors are the simulator's to ignore (a record the
// daemon could not write is one the watcher must cope without).
func (r *recorder) row(at time.Time, kind string, payload map[string]any) {
	if r == nil {
		return
	}
	appendJSON(r.rollout, struct {
		Timestamp string         `json:"timestamp"`
		Ordinal   int            `json:"ordinal"`
		Type      string         `json:"type"`
		Payload   map[string]any `json:"payload"`
	}{stamp(at), r.ordinal, kind, payload})
	r.ordinal++
}

func appendJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(b, '\n'))
	return err
}

// prompt records a submitted prompt: its turn begins.
func (r *recorder) prompt(at time.Time, text string) {
	if r == nil {
		return
	}
	r.turn = uuid7(at)
	r.row(at, "event_msg", map[string]any{"type": "task_started", "turn_id": r.turn, "root_turn_id": r.turn,
		"started_at": at.Unix(), "model_context_window": 475000, "collaboration_mode_kind": "default"})
	r.row(at, "response_item", map[string]any{"type": "message", "id": "msg_" + uuid7(at), "role": "user",
		"content": []any{map[string]any{"type": "input_text", "text": text}}})
	r.row(at, "event_msg", map[string]any{"type": "item_completed", "thread_id": r.thread, "turn_id": r.turn,
		"item": map[string]any{"type": "UserMessage", "id": uuid7(at), "content": []any{map[string]any{"type": "text", "text": text, "text_elements": []any{}}}}})
	appendJSON(filepath.Join(r.home, "history.jsonl"), map[string]any{"session_id": r.thread, "ts": at.Unix(), "text": text})
}

// tokenCount is the token_count row with the rate limits: the primary window used percent
// and reset (none when reset is zero: the server sent no x-codex-* headers).
func (r *recorder) tokenCount(at time.Time, used float64, reset time.Time, plan string) {
	usage := map[string]any{"input_tokens": 1200, "cached_input_tokens": 0, "output_tokens": 10, "reasoning_output_tokens": 0, "total_tokens": 1210}
	var limits any
	if !reset.IsZero() {
		limits = map[string]any{"limit_id": "codex", "limit_name": nil,
			"primary":   map[string]any{"used_percent": used, "window_minutes": 300, "resets_at": reset.Unix()},
			"secondary": map[string]any{"used_percent": 5.0, "window_minutes": 10080, "resets_at": at.Add(7 * 24 * time.Hour).Unix()},
			"credits":   map[string]any{"has_credits": false, "unlimited": false, "balance": "0"}, "individual_limit": nil,
			"spend_control_reached": nil, "plan_type": plan, "rate_limit_reached_type": nil}
	}
	r.row(at, "event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": usage,
		"last_token_usage": usage, "model_context_window": 475000}, "rate_limits": limits})
}

// limit records the stop that ends the running turn.
func (r *recorder) limit(at, reset time.Time, message, plan string) {
	if r == nil {
		return
	}
	r.tokenCount(at, 100, reset, plan)
	r.row(at, "event_msg", map[string]any{"type": "task_complete", "root_turn_id": r.turn, "turn_id": r.turn, "last_agent_message": nil,
		"error":      map[string]any{"message": message, "codex_error_info": "usage_limit_exceeded"},
		"started_at": at.Unix(), "completed_at": at.Unix(), "duration_ms": 259})
}

// reply records the reply that ends the running turn.
func (r *recorder) reply(at time.Time, text string) {
	if r == nil {
		return
	}
	r.row(at, "response_item", map[string]any{"type": "message", "id": "msg_" + uuid7(at), "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": text}}})
	r.tokenCount(at, 12, at.Add(5*time.Hour), "plus")
	r.row(at, "event_msg", map[string]any{"type": "task_complete", "root_turn_id": r.turn, "turn_id": r.turn, "last_agent_message": text,
		"started_at": at.Unix(), "completed_at": at.Unix(), "duration_ms": 257})
}

// startDaemon starts the stand-in app-server daemon (this program again, in a session of its
// own, TZ set to the daemon's zone) and writes its daemon.pid as Codex does.
func (r *recorder) startDaemon(zone *time.Location, now time.Time, launcher []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("simcodex: --records: %w", err)
	}
	cmd := exec.Command(exe, append(append([]string(nil), launcher...), "app-server", "--listen", "unix://", "--managed-daemon")...)
	cmd.Env = os.Environ()
	if name := zone.String(); name != "Local" {
		cmd.Env = append(cmd.Env, "TZ="+name)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("simcodex: --records: daemon: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("simcodex: --records: daemon: %w", err)
	}
	r.daemon, r.hangUp = cmd, in
	sum, path := sha256.Sum256(readAll(exe)), sha256.Sum256([]byte(exe))
	b, err := json.Marshal(daemonPid{cmd.Process.Pid, now.In(zone).Format("Mon Jan _2 15:04:05 2006"),
		processIdentity{bootID(), startTicks(cmd.Process.Pid)}, executableIdentity{numbers(sum[:]), numbers(path[:])}})
	if err != nil {
		return fmt.Errorf("simcodex: --records: daemon.pid: %w", err)
	}
	dir := filepath.Join(r.home, "app-server-daemon")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("simcodex: --records: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "daemon.pid"), b, 0o600)
}

// daemonPid is $CODEX_HOME/app-server-daemon/daemon.pid, its fields in Codex's order: the
// daemon's pid, its start in the daemon's zone as ctime(3) prints it, the kernel's boot id and
// the start in clock ticks, and digests of the executable and of its path (taken here as
// SHA-256 of the file and of the path: 32 bytes, like Codex's).
type daemonPid struct {
	Pid                int                `json:"pid"`
	ProcessStartTime   string             `json:"processStartTime"`
	ProcessIdentity    processIdentity    `json:"processIdentity"`
	ExecutableIdentity executableIdentity `json:"executableIdentity"`
}

type processIdentity struct {
	BootID     string `json:"bootId"`
	StartTicks int64  `json:"startTicks"`
}

type executableIdentity struct {
	Digest     []int `json:"digest"`
	PathDigest []int `json:"path_digest"`
}

// numbers are bytes as JSON numbers, as Codex writes its digests (encoding/json would write
// a []byte as base64).
func numbers(b []byte) []int {
	out := make([]int, len(b))
	for i, c := range b {
		out[i] = int(c)
	}
	return out
}

func readAll(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

// bootID is the kernel's boot id ("" where there is none).
func bootID() string { return strings.TrimSpace(string(readAll("/proc/sys/kernel/random/boot_id"))) }

// startTicks is field 22 of /proc/PID/stat, the process's start in clock ticks (0 where there
// is no /proc).
func startTicks(pid int) int64 {
	s := string(readAll("/proc/" + strconv.Itoa(pid) + "/stat"))
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return 0
	}
	n, _ := strconv.ParseInt(fields[19], 10, 64)
	return n
}

// close ends the stand-in daemon and waits for it.
func (r *recorder) close() {
	if r != nil && r.daemon != nil {
		r.hangUp.Close()
		r.daemon.Wait()
	}
}

// daemon is the stand-in app-server daemon: it holds nothing and ends when its input does
// (the simulator that started it ended).
func daemon() error {
	io.Copy(io.Discard, os.Stdin)
	return nil
}
