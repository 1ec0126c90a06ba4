package main

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and revision are stamped by make (-ldflags -X main.version=… -X main.revision=…)
// from git, for builds the go command cannot stamp itself: in a linked git worktree
// (golang/go#58218), outside a checkout, or with -buildvcs=false.
var version, revision string

// versionText says which cac-tmux this is, from the build information the go command stamps
// into every binary it builds in a module (else what make stamped): the module version (a
// tag, or a pseudo-version of the commit, "+dirty" when the tree had uncommitted changes;
// "(devel)" under go run), the VCS revision ("+dirty" when the tree was modified), and the
// Go toolchain and platform.
func versionText() string {
	v, rev := cmp.Or(version, "(devel)"), cmp.Or(revision, "unknown")
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		stamped := map[string]string{}
		for _, s := range info.Settings {
			stamped[s.Key] = s.Value
		}
		if r := stamped["vcs.revision"]; r != "" {
			rev = r
			if stamped["vcs.modified"] == "true" {
				rev += "+dirty"
			}
		}
	}
	return fmt.Sprintf("%s (revision %s, %s %s/%s)", v, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersion(std *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the version, the VCS revision and the Go toolchain of this binary",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(std.out, "cac-tmux %s\n", versionText())
			return err
		},
	}
}
