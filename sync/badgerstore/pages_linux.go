package badgerstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Badger maps every table (.sst) of a database into the process whole
// and reads it through the mapping: a page read once stays resident, and
// counted in the process's RSS, until the kernel needs the memory. A
// read of the whole ledger (a raft snapshot copies every key; a page that
// walks the journal) leaves the process holding every table it read: on
// five years of books that was most of the node's peak RSS. BoundTablePages
// gives those pages back.

// TablePagesBudget is how much of the process's file-backed resident
// memory (RssFile: the executable, the memtables' logs, the tables) may
// stand before BoundTablePages gives the tables' pages back.
const TablePagesBudget = 64 << 20

// BoundTablePages checks the process's file-backed resident memory every
// interval until ctx ends and, when it is over budget, asks the kernel to
// reclaim the pages of the tables under dirs (ReleaseTablePages). A table
// page read again after that comes back from the page cache or the disk.
func BoundTablePages(ctx context.Context, budget int64, every time.Duration, dirs ...string) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if fileRSS() > budget {
			ReleaseTablePages(dirs...)
		}
	}
}

// ReleaseTablePages advises the kernel to page out (MADV_PAGEOUT) this
// process's mappings of the tables under dirs, and returns how many bytes
// of mappings it advised. The advice is only a hint: a page is dropped
// only when it is clean and this process alone maps it, and a range the
// process has unmapped and mapped to something else since /proc/self/maps
// was read is at worst paged out, never changed, so that racing a
// compaction that closes a table is harmless.
func ReleaseTablePages(dirs ...string) int64 {
	raw, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0
	}
	var prefixes []string
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			prefixes = append(prefixes, abs+string(filepath.Separator))
		}
	}
	var advised int64
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		// address perms offset dev inode path
		f := strings.Fields(sc.Text())
		if len(f) < 6 || !strings.HasSuffix(f[5], ".sst") || !hasAnyPrefix(f[5], prefixes) {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_PAGEOUT); errno == 0 {
			advised += int64(end - start)
		}
	}
	return advised
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// fileRSS returns the process's file-backed resident memory (RssFile in
// /proc/self/status), in bytes, or 0 when it cannot be read.
func fileRSS() int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			var kb int64
			fmt.Sscan(v, &kb)
			return kb << 10
		}
	}
	return 0
}
