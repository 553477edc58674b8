package roomtax

// SetExportReadSubjects sets how many returns each recorded read of an
// export names, and returns a func that puts it back.
func SetExportReadSubjects(n int) (restore func()) {
	was := exportReadSubjects
	exportReadSubjects = n
	return func() { exportReadSubjects = was }
}
