package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The documents whose relative links must resolve: the README, everything
// in docs/, and the design notes kept beside the code. Links are checked
// against the working tree: a file or folder must exist, and a #fragment
// must name a heading of the target Markdown file (GitHub's anchors).
var linkedDocs = []string{"README.md", "docs/*.md", "*/README.md", "*/*/README.md", "*/*/*/README.md"}

// TestDocsLinksResolve fails on a relative link in the repository's
// Markdown documents whose file or heading does not exist.
func TestDocsLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	var files []string
	for _, pattern := range linkedDocs {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 2 {
		t.Fatalf("found %d documents under %s, want the README and docs/", len(files), root)
	}
	broken, err := brokenLinks(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
}

// TestBrokenLinksFindsEach: the checker reports exactly the broken links of
// a fixture (a missing file, a missing heading in this file and in
// another, a link to a folder, links inside code that are not links).
func TestBrokenLinksFindsEach(t *testing.T) {
	broken, err := brokenLinks([]string{filepath.Join("testdata", "links", "a.md")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"testdata/links/a.md:7: missing.md: no such file",
		"testdata/links/a.md:8: #no-such-heading: no heading with that anchor in testdata/links/a.md",
		"testdata/links/a.md:9: b.md#nowhere: no heading with that anchor in testdata/links/b.md",
		"testdata/links/a.md:14: sub/gone.md: no such file",
	}
	for i := range broken {
		broken[i] = filepath.ToSlash(broken[i])
	}
	if !slices.Equal(broken, want) {
		t.Errorf("broken links:\n%s\nwant:\n%s", strings.Join(broken, "\n"), strings.Join(want, "\n"))
	}
}

func TestHeadingAnchor(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Measured results", "measured-results"},
		{"`make demo`", "make-demo"},
		{"The bundled corpus: size, compression, Parquet I/O", "the-bundled-corpus-size-compression-parquet-io"},
		{"uct: TSAPR / APRMCTS", "uct-tsapr--aprmcts"},
		{"The priority model and s(e)", "the-priority-model-and-se"},
		{"Baselines on the test split of `/tmp/full`", "baselines-on-the-test-split-of-tmpfull"},
		{"E[T] by **policy**", "et-by-policy"},
		{"snake_case and Ünïcode", "snake_case-and-ünïcode"},
	} {
		if got := headingAnchor(c.heading); got != c.want {
			t.Errorf("headingAnchor(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

var (
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLink    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	heading    = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	scheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// brokenLinks returns "file:line: link: reason" for every relative link of
// files that does not resolve.
func brokenLinks(files []string) ([]string, error) {
	anchors := map[string]map[string]bool{} // by cleaned path
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		a, err := markdownAnchors(path)
		if err != nil {
			return nil, err
		}
		anchors[path] = a
		return a, nil
	}
	var broken []string
	for _, file := range files {
		links, err := markdownLinks(file)
		if err != nil {
			return nil, err
		}
		for _, l := range links {
			if scheme.MatchString(l.dest) || strings.HasPrefix(l.dest, "//") {
				continue // absolute URL: not checked offline
			}
			target, frag, _ := strings.Cut(l.dest, "#")
			path := filepath.Clean(file)
			if target != "" {
				path = filepath.Join(filepath.Dir(file), filepath.FromSlash(target))
				if _, err := os.Stat(path); err != nil {
					broken = append(broken, fmt.Sprintf("%s:%d: %s: no such file", file, l.line, l.dest))
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			a, err := anchorsOf(path)
			if err != nil {
				return nil, err
			}
			if !a[strings.ToLower(frag)] {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: no heading with that anchor in %s", file, l.line, l.dest, path))
			}
		}
	}
	return broken, nil
}

type mdLink struct {
	dest string
	line int
}

// markdownLinks returns the inline and reference-definition link targets of
// a Markdown file, outside fenced code blocks and code spans.
func markdownLinks(path string) ([]mdLink, error) {
	var links []mdLink
	err := markdownLines(path, func(n int, line string) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			links = append(links, mdLink{m[1], n})
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			links = append(links, mdLink{m[1], n})
		}
	})
	return links, err
}

// markdownAnchors returns the anchors GitHub gives the headings of a
// Markdown file, a repeated one suffixed -1, -2, ….
func markdownAnchors(path string) (map[string]bool, error) {
	out := map[string]bool{}
	seen := map[string]int{}
	err := markdownLines(path, func(_ int, line string) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		a := headingAnchor(m[1])
		if k := seen[a]; k > 0 {
			out[fmt.Sprintf("%s-%d", a, k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	})
	return out, err
}

// markdownLines calls fn with every line outside fenced code blocks.
func markdownLines(path string, fn func(n int, line string)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	fence := ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		fn(n, line)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// headingAnchor is GitHub's anchor of a heading: lower case, letters,
// digits, '-' and '_' kept, spaces turned into '-', everything else dropped.
func headingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
