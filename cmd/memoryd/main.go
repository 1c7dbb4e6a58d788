// Command memoryd keeps an AI coding agent's long-term memory folder
// healthy: it rebuilds MEMORY.md, commits changes, compacts with an LLM and
// extracts facts from agent transcripts. See the README.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin})
	stop()
	os.Exit(code)
}
