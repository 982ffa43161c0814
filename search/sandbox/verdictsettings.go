package sandbox

import "strconv"

// VerdictSettings are the options that change verdicts, recorded in a
// corpus's manifest (a resumed build must match them).
func (o Options) VerdictSettings() map[string]string {
	return map[string]string{
		"python":         o.Python,
		"memory_mb":      strconv.Itoa(o.MemoryMB),
		"max_procs":      strconv.Itoa(o.MaxProcs),
		"output_bytes":   strconv.FormatInt(o.OutputBytes, 10),
		"tmpfs_mb":       strconv.Itoa(o.TmpfsMB),
		"feedback_chars": strconv.Itoa(o.FeedbackChars),
		"isolation":      strconv.FormatBool(!o.NoIsolation),
	}
}
