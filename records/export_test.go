package records

// What the tests of package records_test reach that other packages reach only through
// ReadTail and Entry.Transcript.

// ParseRow reads one transcript line (parseRow).
func ParseRow(line []byte) (Row, bool) { return parseRow(line) }

// TranscriptPath is where Claude Code keeps the transcript of a session (transcriptPath).
func TranscriptPath(dir, cwd, session string) (string, error) {
	return transcriptPath(dir, cwd, session)
}

// ParseRollout reads one rollout line (parseRollout).
func ParseRollout(line []byte) (CodexRow, bool) { return parseRollout(line) }
