package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
)

// VerdictSettings are the options that change verdicts, recorded in a
// corpus's manifest (a resumed build, and the slices a merge joins, must
// match them). harness_sha256 names the harness itself: the embedded
// worker.py and the modules it loads (the judge, the program process's
// side, the wire format between them), so that rows judged by one version
// of its rules are never resumed or merged with rows judged by another.
func (o Options) VerdictSettings() map[string]string {
	return map[string]string{
		"python":         o.Python,
		"memory_mb":      strconv.Itoa(o.MemoryMB),
		"max_procs":      strconv.Itoa(o.MaxProcs),
		"output_bytes":   strconv.FormatInt(o.OutputBytes, 10),
		"tmpfs_mb":       strconv.Itoa(o.TmpfsMB),
		"feedback_chars": strconv.Itoa(o.FeedbackChars),
		"isolation":      strconv.FormatBool(!o.NoIsolation),
		"harness_sha256": HarnessSHA256(),
		"hash_seed":      pythonHashSeed,
	}
}

// pythonHashSeed is the workers' PYTHONHASHSEED: the order of a set of
// strings, and so a verdict that depends on it, is the same in every run.
const pythonHashSeed = "0"

// HarnessSHA256 is the hex SHA-256 of the embedded harness files, each
// preceded by its name and length, in workerFileNames order.
var HarnessSHA256 = sync.OnceValue(func() string {
	h := sha256.New()
	for _, name := range workerFileNames {
		b, err := workerFiles.ReadFile(name)
		if err != nil {
			b = []byte("unreadable: " + err.Error()) // cannot happen: the build embeds them
		}
		h.Write([]byte(name + "\x00" + strconv.Itoa(len(b)) + "\x00"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
})
