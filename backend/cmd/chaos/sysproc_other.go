//go:build !linux

package main

import "syscall"

// childAttrs has no parent-death signal outside Linux; the deferred cleanup stops the servers.
func childAttrs() *syscall.SysProcAttr { return nil }
