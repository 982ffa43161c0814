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
}
