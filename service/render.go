package service

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// Settings of the service shared by both managers.
const (
	// restartSec is the pause before a restart after a failure (systemd RestartSec, launchd
	// ThrottleInterval).
	restartSec = 10
	// startLimitBurst restarts within startLimitInterval seconds make systemd give up.
	startLimitBurst    = 5
	startLimitInterval = 300
)

// unit is the systemd user unit for s. The watcher's output goes to the journal (systemd's
// default for a service's stdout and stderr). Exit 2 (a mistake in the configuration, or
// another watcher on the server) is not restarted: it would fail the same way.
func unit(s Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", markerLine(s))
	b.WriteString(`# Written by "cac-tmux service install", which rewrites it; "cac-tmux service uninstall"
# removes it. Put changes in a drop-in (systemctl --user edit cac-tmux.service), or delete
# the first line to make the file yours (cac-tmux then leaves it alone).
[Unit]
Description=cac-tmux: resume Claude Code sessions in tmux after a usage limit lifts
Documentation=https://github.com/cac-tmux/cac-tmux
`)
	fmt.Fprintf(&b, "StartLimitIntervalSec=%d\nStartLimitBurst=%d\n\n[Service]\nType=simple\n", startLimitInterval, startLimitBurst)
	fmt.Fprintf(&b, "ExecStart=%s\n", execLine(s.Args()))
	b.WriteString("# SIGHUP makes the watcher read its configuration file again.\nExecReload=kill -HUP $MAINPID\n")
	fmt.Fprintf(&b, "Restart=on-failure\nRestartSec=%d\nRestartPreventExitStatus=2\n", restartSec)
	for _, kv := range s.Env {
		fmt.Fprintf(&b, "Environment=%s\n", quoteWord(specifiers(kv), true))
	}
	b.WriteString("\n[Install]\nWantedBy=default.target\n")
	return b.String()
}

// execLine is a command line as ExecStart reads it: each argument one word, quoted when it
// holds white space, a quote, a backslash or a ";", or is empty; "%" (a specifier) is
// doubled, and so is "$" (a variable) but in the program's name, which systemd does not
// expand (systemd 252; it refuses quotes and backslashes there: Spec.check).
func execLine(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		a = specifiers(a)
		if i > 0 {
			a = strings.ReplaceAll(a, "$", "$$")
		}
		words[i] = quoteWord(a, false)
	}
	return strings.Join(words, " ")
}

// specifiers doubles "%", so systemd expands no specifier in s.
func specifiers(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// quoteWord puts s in double quotes, with "\" and `"` escaped by a backslash, when always is
// set or systemd would otherwise split or unescape it.
func quoteWord(s string, always bool) string {
	if !always && s != "" && !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// plist is the launchd agent for s: started at login (RunAtLoad), started again when it
// exits with a failure (KeepAlive SuccessfulExit false), at most every ThrottleInterval
// seconds; its output appended to LogFile. Text is XML-escaped.
func plist(s Spec) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
`)
	fmt.Fprintf(&b, "<!-- %s -->\n", markerLine(s))
	b.WriteString(`<!-- Written by "cac-tmux service install", which rewrites it; "cac-tmux service uninstall"
     removes it. Delete the line above to make the file yours (cac-tmux then leaves it alone). -->
<plist version="1.0">
<dict>
`)
	key(&b, "Label", str(Label))
	args := make([]string, 0, len(s.Args()))
	for _, a := range s.Args() {
		args = append(args, str(a))
	}
	key(&b, "ProgramArguments", "<array>\n\t\t"+strings.Join(args, "\n\t\t")+"\n\t</array>")
	if len(s.Env) > 0 {
		var env []string
		for _, kv := range s.Env {
			k, v, _ := strings.Cut(kv, "=")
			env = append(env, "<key>"+escape(k)+"</key>\n\t\t"+str(v))
		}
		key(&b, "EnvironmentVariables", "<dict>\n\t\t"+strings.Join(env, "\n\t\t")+"\n\t</dict>")
	}
	key(&b, "RunAtLoad", "<true/>")
	key(&b, "KeepAlive", "<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>")
	key(&b, "ThrottleInterval", fmt.Sprintf("<integer>%d</integer>", restartSec))
	key(&b, "StandardOutPath", str(s.LogFile))
	key(&b, "StandardErrorPath", str(s.LogFile))
	b.WriteString("</dict>\n</plist>\n")
	return b.String()
}

// key writes one key of the top dict and its value.
func key(b *strings.Builder, k, value string) {
	fmt.Fprintf(b, "\t<key>%s</key>\n\t%s\n", escape(k), value)
}

// str is a plist <string>.
func str(s string) string { return "<string>" + escape(s) + "</string>" }

func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
