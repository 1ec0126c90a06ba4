package hosts

import (
	"fmt"
	"strings"
	"time"
)

// quote makes word one literal word for the remote user's shell, which reads the command line
// ssh hands it: spaces, quotes, $(…), backquotes, globs, ~ and ; lose their meaning. Words of
// only letters, digits and _ - . / : , + @ stay as they are, for a readable command line;
// anything else goes in single quotes, where a ' or a \ is written outside them as \' or \\.
// That reads the same in sh, dash, bash, zsh, ksh, fish (where \ is special inside single
// quotes) and csh (but for a newline, which csh refuses).
func quote(word string) string {
	if word == "" {
		return "''"
	}
	if !strings.ContainsFunc(word, unsafe) {
		return word
	}
	var b strings.Builder
	open := false
	for i := 0; i < len(word); i++ { // bytes: a byte that is no UTF-8 goes as it is
		c := word[i]
		if c == '\'' || c == '\\' {
			if open {
				b.WriteByte('\'')
				open = false
			}
			b.WriteByte('\\')
			b.WriteByte(c)
			continue
		}
		if !open {
			b.WriteByte('\'')
			open = true
		}
		b.WriteByte(c)
	}
	if open {
		b.WriteByte('\'')
	}
	return b.String()
}

// unsafe says whether r may mean something to a shell: anything but letters, digits and
// _ - . / : , + @ (% is fish 2's job expansion, = at a word's start zsh's command lookup).
func unsafe(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("_-./:,+@", r)
}

// commandLine is the line the remote shell runs: the remote cac-tmux command and args, each
// one quoted word (quote). A command that starts with "~/" keeps that prefix unquoted, so that
// the remote shell expands it to the remote user's home: ~/go/bin/cac-tmux, where `go install`
// puts it, is often not on a non-interactive shell's PATH.
func commandLine(command string, args ...string) string {
	words := make([]string, 0, 1+len(args))
	if rest, ok := strings.CutPrefix(command, "~/"); ok {
		if rest == "" {
			words = append(words, "~/")
		} else {
			words = append(words, "~/"+quote(rest))
		}
	} else {
		words = append(words, quote(command))
	}
	for _, a := range args {
		words = append(words, quote(a))
	}
	return strings.Join(words, " ")
}

// sshArgv is `ssh SSHARGS… -o BatchMode=yes -o ConnectTimeout=N HOST -- env
// CAC_TMUX_OVER_SSH=1 LINE`. BatchMode: ssh fails rather than prompt, since nobody may be there
// to answer; the user's SSHArgs come first and win (ssh keeps the first value of an option).
// "--" ends ssh's options (it reads them after the host too) and LINE (commandLine) is one
// argument. A host that ssh would read as an option, or that is not one word, is refused, and
// so is a word with a NUL byte.
func sshArgv(host string, o Options, args ...string) ([]string, error) {
	why := checkHost(host)
	if why == "" && strings.Contains(o.Command+strings.Join(args, ""), "\x00") {
		why = "a word of the remote command holds a NUL byte"
	}
	if why != "" {
		return nil, &Error{Op: opOf(args), Host: host, Kind: ErrInvalid, Code: -1, Detail: why}
	}
	argv := append([]string{o.ssh()}, o.SSHArgs...)
	argv = append(argv, "-o", "BatchMode=yes", "-o", fmt.Sprintf("ConnectTimeout=%d", connectTimeout(o.timeout())),
		host, "--", "env "+OverSSH+"=1 "+commandLine(o.command(), args...))
	return argv, nil
}

// OverSSH is set to 1 in the environment of the remote cac-tmux (through env(1), which every
// remote shell runs alike), to say that it runs for another host's and ends when its standard
// input closes. ssh without a terminal (-T, as here) leaves the remote command running when
// the local ssh dies, and neither sshd nor ssh signals it; what reaches it is the end of its
// standard input, which sshd closes when the connection goes. ssh -tt would hang the remote
// command up instead, but a terminal mixes stderr into stdout and turns "\n" into "\r\n".
const OverSSH = "CAC_TMUX_OVER_SSH"

// checkHost says why a host is refused ("" when it is not): empty, read by ssh as an option
// (-oProxyCommand=…), or not one word.
func checkHost(host string) string {
	switch {
	case host == "":
		return "no host given"
	case strings.HasPrefix(host, "-"):
		return "a host name cannot start with '-' (ssh would read it as an option)"
	case strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "a host name is one word, without spaces or control characters"
	}
	return ""
}

// opOf names a call by the remote subcommand it runs, for its errors.
func opOf(args []string) string {
	if len(args) == 0 || args[0] == "" {
		return "run"
	}
	return args[0]
}

// connectTimeout is ssh's ConnectTimeout, in whole seconds, for a call bounded by timeout: a
// second less, at least one, so that a host that does not answer at all is reported as ssh
// says it (unreachable: connection timed out) before the timeout kills ssh.
func connectTimeout(timeout time.Duration) int {
	s := int((timeout - time.Second) / time.Second)
	return max(s, 1)
}
