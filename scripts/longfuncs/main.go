// Command longfuncs lists the non-test Go functions of a tree that are
// longer than a reader can hold at once (over 80 lines, from the func
// keyword to the closing brace), longest first, and says for each whether
// its doc comment gives the reason it is long (a sentence with "long
// because"). Its test fails on a long function without a reason, so the
// count stays verifiable (issue 42, item 4):
//
//	go run ./scripts/longfuncs [-max 80] [-all] [ROOT]
//
// Without -all it lists only the functions without a reason. It exits 1
// when it lists any.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// DefaultMax is the most lines a function may have without a reason.
const DefaultMax = 80

// reason is how a doc comment says why its function is long.
var reason = regexp.MustCompile(`(?i)\blong because\b`)

// Func is one long function.
type Func struct {
	Path   string // slash-separated, relative to the root
	Name   string // Recv.Name for a method
	Lines  int
	Reason bool // its doc comment says why it is long
}

func (f Func) String() string {
	mark := ""
	if f.Reason {
		mark = " (reason given)"
	}
	return fmt.Sprintf("%4d %s:%s%s", f.Lines, f.Path, f.Name, mark)
}

// Scan returns the non-test functions under root longer than max lines,
// longest first. It skips testdata, hidden folders and files that do not
// parse.
func Scan(root string, max int) ([]Func, error) {
	var out []Func
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil // not Go this tool can read (a template, a fixture)
		}
		for _, decl := range file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n <= max {
				continue
			}
			out = append(out, Func{Path: filepath.ToSlash(rel), Name: funcName(fd), Lines: n,
				Reason: fd.Doc != nil && reason.MatchString(fd.Doc.Text())})
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Lines != out[j].Lines {
			return out[i].Lines > out[j].Lines
		}
		return out[i].Path+out[i].Name < out[j].Path+out[j].Name
	})
	return out, err
}

// funcName is Name, or Recv.Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

func main() {
	max := flag.Int("max", DefaultMax, "the most lines a function may have without a reason")
	all := flag.Bool("all", false, "list the long functions that give a reason too")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	fs, err := Scan(root, *max)
	if err != nil {
		fmt.Fprintln(os.Stderr, "longfuncs:", err)
		os.Exit(2)
	}
	bad := 0
	for _, f := range fs {
		if !f.Reason {
			bad++
		}
		if *all || !f.Reason {
			fmt.Println(f)
		}
	}
	fmt.Printf("%d functions over %d lines, %d without a reason\n", len(fs), *max, bad)
	if bad > 0 {
		os.Exit(1)
	}
}
