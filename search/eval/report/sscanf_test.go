package report

import "fmt"

func fmtSscanf(line string, as, al, bs, bl *int) (int, error) {
	return fmt.Sscanf(line, "@@ -%d,%d +%d,%d @@", as, al, bs, bl)
}
