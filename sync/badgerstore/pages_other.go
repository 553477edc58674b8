//go:build !linux

package badgerstore

import (
	"context"
	"time"
)

// TablePagesBudget is how much of the process's file-backed resident
// memory may stand before BoundTablePages gives the tables' pages back
// (pages_linux.go).
const TablePagesBudget = 64 << 20

// BoundTablePages does nothing here: the appliance runs on Linux, where it
// gives the tables' mapped pages back (pages_linux.go).
func BoundTablePages(ctx context.Context, budget int64, every time.Duration, dirs ...string) {}

// ReleaseTablePages does nothing here (pages_linux.go).
func ReleaseTablePages(dirs ...string) int64 { return 0 }
