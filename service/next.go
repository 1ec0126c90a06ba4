package service

import (
	"fmt"
	"io"
	"strings"
)

// What to do after Install and Uninstall, for the person who ran them: the commands of the
// service manager, which this package never runs itself.

// WriteInstalled tells w what Install did with the file at path (res), what it runs (s), and
// how to start the service, restart it on an updated file, and read its log.
func WriteInstalled(w io.Writer, p Platform, path string, res Result, s Spec) {
	verb := map[Result]string{Created: "wrote", Updated: "updated", Unchanged: "already up to date:"}[res]
	fmt.Fprintf(w, "%s %s\nit runs: %s\n", verb, path, strings.Join(s.Args(), " "))
	switch {
	case res == Updated && p == Systemd:
		fmt.Fprintf(w, "\nIf the service runs, restart it on the new file:\n  systemctl --user daemon-reload && systemctl --user restart %s\n", Unit)
	case res == Updated:
		fmt.Fprintf(w, "\nIf the agent is loaded, load it again:\n  %s; %s\n", DisableCommand(p), EnableCommand(p, path))
	}
	fmt.Fprintf(w, "\nTo start it now and at every login:\n  %s\n", EnableCommand(p, path))
	if p == Systemd {
		fmt.Fprintf(w, "Its log: journalctl --user -u %s -f\n", Unit)
	} else {
		fmt.Fprintf(w, "Its log: %s\n", s.LogFile)
	}
}

// WriteRemoved tells w that Uninstall removed the file at path, and how to stop a service
// that still runs.
func WriteRemoved(w io.Writer, p Platform, path string) {
	fmt.Fprintf(w, "removed %s\n", path)
	if p == Systemd {
		fmt.Fprintf(w, "\nIf it still runs, stop it, then let systemd forget it:\n  systemctl --user stop %s; systemctl --user daemon-reload\n", Unit)
	} else {
		fmt.Fprintf(w, "\nIf the agent is loaded, stop it:\n  %s\n", DisableCommand(p))
	}
}
