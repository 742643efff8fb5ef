// Command sutura is the governed metrics server: one binary whose commands
// serve, answer and inspect a pinned catalogue of certified metrics.
//
// Exit status: 0 success, 1 the command ran and failed, 2 a usage error.
// Errors go to stderr prefixed "sutura: ".
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"sutura.dev/cli/internal/config"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}, config.OSEnv())
	stop()
	os.Exit(code)
}
