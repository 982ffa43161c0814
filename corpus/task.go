package corpus

// Split names.
const (
	SplitTrain = "train"
	SplitVal   = "val"
	SplitTest  = "test"
)

// Task is one repair task in the KodCode-compatible JSONL format (see
// docs/design.md): a question, a reference solution, a pytest file that imports
// from `solution`, optional buggy roots and an optional split.
type Task struct {
	ID         string   `json:"task_id"`
	Question   string   `json:"question"`
	Solution   string   `json:"solution"`
	Test       string   `json:"test"`
	EntryPoint string   `json:"entry_point,omitempty"`
	Roots      []string `json:"roots,omitempty"`
	Split      string   `json:"split,omitempty"`
	Category   string   `json:"category,omitempty"`
	// Source names the task set the task comes from ("bundled", "mbpp",
	// ...), so tools can group trees by it; "" reads as SourceUnknown.
	Source string `json:"source,omitempty"`
	// License is the licence of a task taken from a dataset ("CC-BY-4.0").
	License string `json:"license,omitempty"`
	// Origin says where upstream the task was taken from, at a pinned
	// commit (a URL of the file or folder, commit in the path).
	Origin string `json:"origin,omitempty"`
}

// SourceUnknown is the source of a task whose file names none.
const SourceUnknown = "unknown"

// SourceOf returns the task's source, or SourceUnknown when it names none.
func SourceOf(task *Task) string {
	if task.Source != "" {
		return task.Source
	}
	return SourceUnknown
}
