package main

// runChildIfRequested runs the sandbox's child side when this process was
// started as one, and reports whether it did. The sandbox package owns the
// protocol; see search/sandbox.
func runChildIfRequested() bool { return false }
