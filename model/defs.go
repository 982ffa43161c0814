package model

import "strings"

// definitions maps each identifier of a program to the first line (1-based)
// that binds it: a def's parameters, an assignment target (x = …, x += …,
// a, b = …), a for-loop target, an import, a with/except … as name, a
// function or class name. A rough static reading of Python: enough to tell
// whether a name exists before the line an edit touches.
func definitions(lines []string) (first map[string]int, params map[string]bool) {
	first, params = map[string]int{}, map[string]bool{}
	bind := func(name string, line int) {
		if name == "" || !isIdentStart(name[0]) {
			return
		}
		if _, ok := first[name]; !ok {
			first[name] = line
		}
	}
	for i, l := range lines {
		ln := i + 1
		s := strings.TrimSpace(l)
		toks := codeTokens(s)
		if len(toks) == 0 {
			continue
		}
		switch toks[0] {
		case "def", "class":
			if len(toks) > 1 {
				bind(toks[1], ln)
			}
			if toks[0] == "def" {
				for _, p := range defParams(toks) {
					bind(p, ln)
					params[p] = true
				}
			}
			continue
		case "for":
			for j := 1; j < len(toks) && toks[j] != "in"; j++ {
				bind(toks[j], ln)
			}
			continue
		case "import", "from":
			for j := 1; j < len(toks); j++ {
				if toks[j] == "as" && j+1 < len(toks) {
					bind(toks[j+1], ln)
				}
			}
			if toks[0] == "import" && len(toks) > 1 {
				bind(toks[1], ln)
			}
			continue
		}
		// with … as x, except E as x
		for j := 0; j+1 < len(toks); j++ {
			if toks[j] == "as" {
				bind(toks[j+1], ln)
			}
		}
		for _, t := range assignTargets(toks) {
			bind(t, ln)
		}
	}
	return first, params
}

// defParams are the parameters of a def line's tokens: the names right
// after "(" or "," (or "*" and "**") at depth 1.
func defParams(toks []string) []string {
	var out []string
	depth := 0
	for j := 2; j < len(toks); j++ {
		switch toks[j] {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		}
		if depth == 1 && (toks[j-1] == "(" || toks[j-1] == "," || toks[j-1] == "*" || toks[j-1] == "**") && isIdentStart(toks[j][0]) {
			out = append(out, toks[j])
		}
	}
	return out
}

// assignTargets are the names a line's tokens assign: before the first
// "=" or augmented "op=", the first name of the target (x in x[i] = …)
// and each name after a comma (a, b = …).
func assignTargets(toks []string) []string {
	var out []string
	for j, t := range toks {
		if t == "=" || (len(t) >= 2 && t[len(t)-1] == '=' && t != "==" && t != "!=" && t != "<=" && t != ">=") {
			for _, u := range toks[:j] {
				if isIdentStart(u[0]) {
					out = append(out, u)
					break
				}
			}
			for k := 0; k < j; k++ {
				if toks[k] == "," && k+1 < j {
					out = append(out, toks[k+1])
				}
			}
			break
		}
	}
	return out
}
