package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/hashicorp/raft"

	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
)

// promoteCommand runs `appliance promote`: with village hall lost, it makes
// the stopped backup node (or whichever nodes survive) the whole cluster,
// so that it can commit again. docs/operating.md, "Promoting the backup node",
// is the procedure around it; read it first: the lost nodes must never
// come back on their old data folders.
func promoteCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("promote", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "data", "data folder of the stopped node to promote")
	keep := fs.String("keep", "", "ids of every surviving node to keep as voters, comma-separated (default: this node alone)")
	paramsFile := fs.String("params", "", "parameter file the node serves with, layered over the embedded defaults")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	settings, clustered, err := readSettings(*data)
	if err != nil {
		return err
	}
	if !clustered {
		return fmt.Errorf("%s holds no clustered node (no %s): there is nothing to promote", *data, nodeFile)
	}
	params, err := loadParams(*paramsFile)
	if err != nil {
		return err
	}
	var ids []string
	for _, id := range strings.Split(*keep, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	ident, err := pki.LoadIdentity(pkiDir(*data))
	if err != nil {
		return fmt.Errorf("load this node's certificate: %w", err)
	}
	if ident.StatedRole() == pki.RoleKiosk {
		// The other nodes take no snapshot nor change of membership from a
		// kiosk, so a cluster made of a promoted kiosk could never take a
		// node back in.
		return fmt.Errorf("%s is the kiosk's data folder: promote the backup node or the clerk's node; the kiosk joins the promoted node again from an empty folder", *data)
	}
	cluster := ident.Cluster()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rec, err := replica.Recover(replica.Config{ID: settings.ID, Dir: *data, Params: params, Logger: logger, Cluster: cluster}, ids)
	if err != nil {
		return fmt.Errorf("promote %s: %w (stop the node first: systemctl stop appliance)", settings.ID, err)
	}
	fmt.Fprintf(stdout, "promoted node %s in %s\n", settings.ID, *data)
	fmt.Fprintf(stdout, "  cluster before: %s\n", serverList(rec.Before))
	fmt.Fprintf(stdout, "  cluster now:    %s\n", serverList(rec.After))
	fmt.Fprintf(stdout, "  ledger applied through log index %d; %d queued commands will post once it runs\n", rec.Applied, rec.PendingSent)
	if rec.Lost != nil {
		// Promotion goes on without what this node's own disk lost: say
		// which entries, so the operator can look for them elsewhere.
		fmt.Fprintf(stdout, "  warning: log entries %d to %d were lost from this node's disk (%s) and the promoted cluster goes on without them; a payment they held shows in the other nodes' journals or the newest backup\n", rec.Lost.From, rec.Lost.To, rec.Lost.Dir)
	}
	fmt.Fprintf(stdout, "start it (systemctl start appliance). The nodes left out must never start on their old data folders:\n")
	fmt.Fprintf(stdout, "move those folders aside and join them again from empty folders (docs/operating.md, \"Promoting the backup node\").\n")
	return nil
}

func serverList(servers []raft.Server) string {
	parts := make([]string, len(servers))
	for i, v := range servers {
		parts[i] = fmt.Sprintf("%s (%s, %s)", v.ID, v.Address, v.Suffrage)
	}
	return strings.Join(parts, ", ")
}
