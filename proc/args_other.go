//go:build !darwin

package proc

// noProcSource names the sources of the path without /proc in Found.How.
const noProcSource = " (ps, lsof)"

// exactArgs is the darwin source of argv and environment (args_darwin.go); elsewhere ps
// serves.
func exactArgs(int) (procArgs, error) { return procArgs{}, errNoExactArgs }
