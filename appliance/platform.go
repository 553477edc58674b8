package main

import (
	"fmt"
	"runtime"
	"strconv"
)

// refuse32Bit stops the appliance on a 32-bit platform. Badger v4 loses or
// corrupts data on 32-bit builds (armv7, 386) once compaction runs, so the
// appliance needs a 64-bit OS: on a Raspberry Pi, 64-bit Raspberry Pi OS.
func refuse32Bit() error {
	if strconv.IntSize != 64 {
		return fmt.Errorf("this is a %d-bit build (%s/%s); the ledger store loses data on 32-bit platforms. "+
			"Install 64-bit Raspberry Pi OS and use the linux/arm64 build (make build-pi)", strconv.IntSize, runtime.GOOS, runtime.GOARCH)
	}
	return nil
}
