package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The script example in docs/agents.md must keep working as documented.
func TestReadmeScriptExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)A script file for `--agent script:FILE`:\n\n```json\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("docs/agents.md has no script example")
	}
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	r := h.script(t, t.TempDir(), "", "--session", "readme", "--agent", "script:"+script, "-c", "go")
	if r.code != 3 { // stopped without progress, as documented
		t.Fatalf("exit %d, want 3; stderr %q", r.code, r.stderr)
	}
	wantOutput(t, r.stdout, "⏺ todo_write 2 items", "continuing 1/3 — 1 open item", "stopped: 3 attempts without progress")
	h.assertList(t, "readme", "write the parser", "write tests")
	if sess, err := h.store().Load("readme"); err != nil || sess.Todos[0].Status != "completed" || sess.Todos[1].Status != "pending" {
		t.Errorf("statuses on disk = %+v, %v; want completed, pending", sess, err)
	}
}

// TestResumeIsDocumentedAsItWorks: --resume and todosh mcp open the
// session of the directory changed most recently (todostore.MostRecentIn);
// no page and no --help may say "started".
func TestResumeIsDocumentedAsItWorks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "README.md"), filepath.Join("..", "ARCHITECTURE.md"))
	texts := map[string]string{"todosh --help": newHome(t).script(t, t.TempDir(), "", "--help").stdout}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[p] = string(b)
	}
	stale := regexp.MustCompile(`most\s+recent(ly)?\s+(session\s+)?started|most\s+recently\s+started`)
	for name, text := range texts {
		if m := stale.FindString(text); m != "" {
			t.Errorf("%s says %q: the session opened is the one changed most recently", name, m)
		}
	}
	if !strings.Contains(texts["todosh --help"], "changed most recently") {
		t.Errorf("todosh --help does not say which session --resume opens:\n%s", texts["todosh --help"])
	}
}

// TestDocLinks: every relative link in the README, ARCHITECTURE.md and
// docs/ names a file of the repository, and every #anchor a heading of
// that file, so the pages a newcomer follows are never dead ends.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "README.md"), filepath.Join("..", "ARCHITECTURE.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(stripCode(string(text)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			checked++
			data, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: link %q: %v", page, target, err)
				continue
			}
			if anchor != "" && !slices.Contains(headingSlugs(string(data)), anchor) {
				t.Errorf("%s: link %q: no heading with anchor #%s in %s", page, target, anchor, path)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d links checked: the pattern or the pages are wrong", checked)
	}
}

// stripCode drops fenced code blocks, whose brackets are not links.
func stripCode(md string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// headingSlugs are the anchors GitHub gives a page's headings: lower case,
// punctuation dropped, spaces as hyphens.
func headingSlugs(md string) []string {
	var slugs []string
	for _, line := range strings.Split(stripCode(md), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ' || r == '-':
				b.WriteRune('-')
			case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slugs = append(slugs, b.String())
	}
	return slugs
}
