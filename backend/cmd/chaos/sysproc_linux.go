package main

import "syscall"

// childAttrs makes the kernel kill a server if the suite itself dies without cleaning up (kill -9 of the
// suite, a crash): no fabrica process outlives the run that started it.
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
