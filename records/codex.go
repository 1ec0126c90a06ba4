package records

import "path/filepath"

// CodexDir is the Codex process's home, where it keeps its rollouts (sessions/), its daemon's
// pid file (app-server-daemon/daemon.pid) and its login: CODEX_HOME, else $HOME/.codex; ""
// when neither is known. Each Codex home is one account.
func (e Env) CodexDir() string {
	switch {
	case e.CodexHome != "":
		return e.CodexHome
	case e.Home != "":
		return filepath.Join(e.Home, ".codex")
	}
	return ""
}
