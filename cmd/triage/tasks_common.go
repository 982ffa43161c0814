package main

// skipBadLinesUsage is the help of every --skip-bad-lines flag.
const skipBadLinesUsage = "use the valid tasks of a file with malformed lines instead of refusing it (exit 2)"
