package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RowKind is what a transcript row is, as far as cac-tmux cares.
type RowKind int

// The kinds of transcript rows the reader keeps; every other row is skipped.
const (
	// RowUser is a user row: a prompt, or a tool result sent back.
	RowUser RowKind = iota + 1
	// RowAssistant is an assistant row that is not an API error: a turn ran.
	RowAssistant
	// RowLimit is a usage-limit stop: an API error row with quotaLimits.status "rejected" and
	// a resetsAt.
	RowLimit
	// RowError is any other API error row: a transient 429, the usage-credits stop, a 5xx.
	RowError
)

// Row is the part of one transcript row that cac-tmux reads: its kind and instant, and for a
// usage-limit row its reset and limit type. No message text is kept; a user prompt is kept
// only as a digest, to recognise the message the watcher typed.
type Row struct {
	Kind      RowKind
	At        time.Time // the row's timestamp
	SessionID string
	// Prompt is Digest of a user row's text prompt, 0 for anything else (a tool result).
	Prompt uint64
	// ResetsAt and RateLimitType are set on RowLimit rows ("five_hour", "seven_day",
	// "seven_day_opus", "seven_day_sonnet", "overage", …).
	ResetsAt      time.Time
	RateLimitType string
}

// Digest is the digest Row.Prompt holds of a prompt: FNV-1a of its text without the
// surrounding white space.
func Digest(text string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.TrimSpace(text)))
	return h.Sum64()
}

// row is the shape of a transcript line, reduced to the fields named here; encoding/json
// skips every other field without keeping it.
type row struct {
	Type        string `json:"type"`
	Timestamp   string `json:"timestamp"`
	SessionID   string `json:"sessionId"`
	IsAPIError  bool   `json:"isApiErrorMessage"`
	Transient   bool   `json:"apiErrorIsTransient"`
	QuotaLimits *struct {
		Status        string `json:"status"`
		ResetsAt      int64  `json:"resetsAt"`
		RateLimitType string `json:"rateLimitType"`
	} `json:"quotaLimits"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// parseRow reads one transcript line. ok is false for rows of no interest and for anything
// that is not such a row: malformed JSON, a missing or bad timestamp, another version's shape.
func parseRow(line []byte) (r Row, ok bool) {
	line = bytes.TrimRight(line, "\r\n")
	if !bytes.Contains(line, []byte(`"user"`)) && !bytes.Contains(line, []byte(`"assistant"`)) {
		return Row{}, false // most rows (attachments, request blobs) are skipped undecoded
	}
	var x row
	if json.Unmarshal(line, &x) != nil {
		return Row{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, x.Timestamp)
	if err != nil {
		return Row{}, false
	}
	r = Row{At: at, SessionID: x.SessionID}
	switch {
	case x.Type == "user":
		r.Kind, r.Prompt = RowUser, prompt(x.Message.Content)
	case x.Type != "assistant":
		return Row{}, false
	case !x.IsAPIError:
		r.Kind = RowAssistant
	case !x.Transient && x.QuotaLimits != nil && x.QuotaLimits.Status == "rejected" && x.QuotaLimits.ResetsAt > 0:
		r.Kind = RowLimit
		r.ResetsAt, r.RateLimitType = time.Unix(x.QuotaLimits.ResetsAt, 0), x.QuotaLimits.RateLimitType
	default:
		r.Kind = RowError
	}
	return r, true
}

// prompt is the digest of a user row's content when it is a text prompt: a string, or a
// single text block; 0 otherwise.
func prompt(content json.RawMessage) uint64 {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return Digest(s)
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) == nil && len(blocks) == 1 && blocks[0].Type == "text" {
		return Digest(blocks[0].Text)
	}
	return 0
}

// Tail reading bounds: the first read is the last tailStart bytes; it grows fourfold, up to
// tailMax, only while the window holds no user and no usage-limit row of the session.
const (
	tailStart = 256 << 10
	tailMax   = 16 << 20
)

// ReadTail returns the rows of session id (rows naming another session are left out) found
// in the end of the transcript at path, oldest first. It never reads the whole of a large
// file: see tailStart and tailMax. A partial first or last line is skipped.
func ReadTail(path, session string) ([]Row, error) {
	return readTail(path, func(line []byte) (Row, bool) {
		r, ok := parseRow(line)
		return r, ok && (r.SessionID == "" || r.SessionID == session)
	}, useful)
}

// readTail parses the lines of the end of the file at path with parse, oldest first: the last
// tailStart bytes, then a window four times larger, up to tailMax, while useful says the rows
// are not enough. A partial first or last line is skipped.
func readTail[T any](path string, parse func([]byte) (T, bool), useful func([]T) bool) ([]T, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("records: read %s: %w", path, ErrNoRecord)
	}
	if err != nil {
		return nil, fmt.Errorf("records: read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("records: read %s: %w", path, err)
	}
	size := st.Size()
	for n := int64(tailStart); ; n *= 4 {
		rows, err := readWindow(f, size, min(n, size), parse)
		if err != nil {
			return nil, fmt.Errorf("records: read %s: %w", path, err)
		}
		if n >= size || n >= tailMax || useful(rows) {
			return rows, nil
		}
	}
}

// readWindow parses the last n bytes of a file of the given size.
func readWindow[T any](f *os.File, size, n int64, parse func([]byte) (T, bool)) ([]T, error) {
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if n < size {
		// The window starts inside a line: drop up to the first newline.
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil, nil
		}
		buf = buf[i+1:]
	}
	var rows []T
	for line := range bytes.SplitSeq(buf, []byte("\n")) {
		if r, ok := parse(line); ok {
			rows = append(rows, r)
		}
	}
	return rows, nil
}

func useful(rows []Row) bool {
	for _, r := range rows {
		if r.Kind == RowUser || r.Kind == RowLimit {
			return true
		}
	}
	return false
}

// LatestLimit returns the last usage-limit row, unless a user row comes after it (the
// session went on after that stop, so it is not the one on screen).
func LatestLimit(rows []Row) (Row, bool) {
	for i := len(rows) - 1; i >= 0; i-- {
		switch rows[i].Kind {
		case RowUser:
			return Row{}, false
		case RowLimit:
			return rows[i], true
		}
	}
	return Row{}, false
}

// Stop is what a transcript says of a stop drawn on the screen of its process.
type Stop int

// The answers of StopOf.
const (
	// StopUnknown: the rows cannot tell (none of the session, an API error that is not read as
	// a usage limit, or no start instant to compare with); the screen decides.
	StopUnknown Stop = iota
	// StopOwn: the last row is a usage-limit row written after the process started.
	StopOwn
	// StopEarlier: the last row is a usage-limit row written before the process started: a
	// conversation reopened (claude -c, --resume) redraws a stop of an earlier process.
	StopEarlier
	// StopNone: the last row is a prompt or a reply: the session went on after its last
	// usage-limit row, or never had one, so a stop on screen is only text (a quoted line).
	StopNone
)

// StopOf says whose stop a stop on screen is, from the rows of the process's session and the
// instant the process started (zero when unknown): a real stop of this process has a
// usage-limit row, written after the process started, and nothing after it. Rows of no
// interest (attachments, system rows) are not in rows and do not count.
func StopOf(rows []Row, started time.Time) Stop {
	if len(rows) == 0 {
		return StopUnknown
	}
	last := rows[len(rows)-1]
	switch {
	case last.Kind == RowUser || last.Kind == RowAssistant:
		return StopNone
	case last.Kind != RowLimit || started.IsZero():
		return StopUnknown
	case last.At.Before(started):
		return StopEarlier
	}
	return StopOwn
}

// Outcome is what the transcript says of a resume.
type Outcome int

// The outcomes Proof tells apart.
const (
	// Unproven: no row yet says whether the resume worked.
	Unproven Outcome = iota
	// Resumed: a user row with the message, then an assistant row: a turn ran.
	Resumed
	// LimitAgain: a user row with the message, then a new usage-limit row.
	LimitAgain
)

// Proof says what the rows written at or after since tell about a resume that typed message:
// the first user row carrying it and the first assistant or usage-limit row after that. An
// empty message (a menu digit, a bare Enter) accepts any user row.
func Proof(rows []Row, since time.Time, message string) Outcome {
	want, seen := Digest(message), false
	for _, r := range rows {
		if r.At.Before(since) {
			continue
		}
		switch {
		case r.Kind == RowUser && (message == "" || r.Prompt == want):
			seen = true
		case !seen:
		case r.Kind == RowAssistant:
			return Resumed
		case r.Kind == RowLimit:
			return LimitAgain
		}
	}
	return Unproven
}

// transcriptPath is where Claude Code keeps the transcript of a session:
// <dir>/projects/<cwd with every character but letters and digits as "-">/<session>.jsonl
// (seen with 2.1.330: "/tmp/rec/h/work.dir" is "-tmp-rec-h-work-dir"). When that file does
// not exist, the one file of that session name under projects/ is taken: the session id is
// unique, and the encoding of unusual directory names may differ between versions.
func transcriptPath(dir, cwd, session string) (string, error) {
	if dir == "" || session == "" || strings.ContainsAny(session, `/\*?[`) || session == "." || session == ".." {
		return "", fmt.Errorf("records: transcript of session %q: %w", session, ErrNoRecord)
	}
	name := session + ".jsonl"
	p := filepath.Join(dir, "projects", encodeCwd(cwd), name)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "projects", "*", name))
	if len(matches) != 1 {
		return "", fmt.Errorf("records: transcript of session %s: %w", session, ErrNoRecord)
	}
	return matches[0], nil
}

func encodeCwd(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
}
