// Command appliance runs the Village of Belleville's finance appliance: the
// replicated ledger, the resident kiosk and the clerk's office, one binary
// per node. See docs/operating.md for the subcommands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: appliance <command> [flags]

commands:
  serve    run a node: the ledger, the kiosk and the staff pages
  init     make the village CA and the first node of a cluster
  cert     issue a certificate bundle for a new node (cert issue)
  join     install a bundle; the node joins the cluster as a voter when it starts
  remove   remove a node from the cluster
  transfer move leadership (to --node-id, or to the best follower)
  promote  make a stopped surviving node the whole cluster (village hall lost; see docs/operating.md)
  user     add, reset, disable or enable a staff account (user add|reset|disable|enable)
  rules    evaluate Chapter 5 rules: JSON lines on stdin, one JSON line out per case
  config   check a configuration file (config check FILE)
  backup   write a checked, encrypted backup of a running node's ledger (to the backup drive, with retention)
  backup-key  show, rotate or install the village's backup key (backup-key show|rotate|install; docs/backups.md)
  restore  load a backup of this cluster into an empty data folder (--identity: the backup key)
  drill    restore the newest backup into a scratch folder and verify it (the weekly drill)
  verify   check a stopped node's journal chain and its state against a replay of its log
  version  print the build's release, command encoding and ledger format

Run 'appliance <command> -h' for a command's flags.
`

// run dispatches a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := refuse32Bit(); err != nil {
		fmt.Fprintln(stderr, "appliance:", err)
		return 1
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serveCommand(ctx, args[1:], stderr)
	case "user":
		err = userCommand(ctx, args[1:], stdout, stderr)
	case "rules":
		err = rulesCommand(args[1:], stdin, stdout, stderr)
	case "init":
		err = initCommand(args[1:], stdout, stderr)
	case "cert":
		err = certCommand(args[1:], stdout, stderr)
	case "join":
		err = joinCommand(args[1:], stdout, stderr)
	case "remove", "transfer":
		err = memberCommand(ctx, args[0], args[1:], stdout, stderr)
	case "promote":
		err = promoteCommand(args[1:], stdout, stderr)
	case "config":
		err = configCommand(args[1:], stdout, stderr)
	case "backup":
		err = backupCommand(ctx, args[1:], stdout, stderr)
	case "backup-key":
		err = backupKeyCommand(args[1:], stdout, stderr)
	case "restore":
		err = restoreCommand(args[1:], stdout, stderr)
	case "drill":
		err = drillCommand(args[1:], stdout, stderr)
	case "verify":
		err = verifyCommand(args[1:], stdout, stderr)
	case "version":
		err = versionCommand(stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "appliance: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		if err == errUsage {
			return 2
		}
		fmt.Fprintln(stderr, "appliance:", err)
		return 1
	}
	return 0
}
