package model

// EditChange is what an edit text says it changes: the line it names (0
// when none) and the code before and after (the whole line where the text
// quotes it). A removal's after is "pass".
type EditChange struct {
	Line          int
	Before, After string
}

// ParseEditText reads an edit text in the forms proposers write (the
// mutate proposer's, and the common LLM phrasings with code in backticks),
// as the bag model does; ok is false for prose without a recognisable code
// change. With codeprior.ApplyEdit it gives the child program an edit
// describes before the edit is expanded.
func ParseEditText(text string) (c EditChange, ok bool) {
	p := parseEdit(text)
	return EditChange{Line: p.line, Before: p.before, After: p.after}, p.kind != editUnparsed
}
