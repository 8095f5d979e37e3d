package email

import (
	"bytes"
	htmltemplate "html/template"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// md is CommonMark in goldmark's safe default: raw HTML in the source is dropped (rendered as an HTML
// comment), and links with a dangerous scheme (javascript:, vbscript:, file:, data: except images) are
// emptied. Never add html.WithUnsafe: an operator's Markdown reaches every inbox of the audience.
var md = goldmark.New()

// markdownHTML renders Markdown to HTML for the html part of a mail. The result is safe to embed as is.
func markdownHTML(src string) (htmltemplate.HTML, error) {
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		return "", err
	}
	return htmltemplate.HTML(b.String()), nil // #nosec: goldmark's safe mode escapes text and drops raw HTML
}

// markdownText renders Markdown as plain text for the text part: the words without the markup, list
// items as "- " or "1. ", links as "label (url)", code as written, raw HTML left out (as in the html part).
func markdownText(src string) string {
	source := []byte(src)
	w := &textWriter{src: source}
	w.blocks(md.Parser().Parse(text.NewReader(source)))
	return strings.TrimSpace(w.b.String())
}

type textWriter struct {
	src []byte
	b   strings.Builder
}

// blocks writes n's block children, each followed by a blank line.
func (w *textWriter) blocks(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.block(c)
	}
}

func (w *textWriter) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.Heading, *ast.TextBlock:
		w.inlines(n)
		w.b.WriteString("\n\n")
	case *ast.List:
		i := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			marker := "- "
			if n.IsOrdered() {
				marker = strconv.Itoa(i) + ". "
				i++
			}
			w.b.WriteString(marker + indentRest(w.sub(item), strings.Repeat(" ", len(marker))) + "\n")
		}
		w.b.WriteString("\n")
	case *ast.Blockquote:
		w.b.WriteString("> " + indentRest(w.sub(n), "> ") + "\n\n")
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			w.b.Write(seg.Value(w.src))
		}
		w.b.WriteString("\n")
	case *ast.ThematicBreak:
		w.b.WriteString("----\n\n")
	case *ast.HTMLBlock:
		// Raw HTML is not rendered in the html part either.
	default:
		w.blocks(n)
	}
}

// sub renders n's blocks on their own, trimmed, so a list item or a quote can be indented.
func (w *textWriter) sub(n ast.Node) string {
	inner := &textWriter{src: w.src}
	inner.blocks(n)
	return strings.TrimSpace(inner.b.String())
}

func (w *textWriter) inlines(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			w.b.Write(c.Value(w.src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				w.b.WriteString("\n")
			}
		case *ast.String:
			w.b.Write(c.Value)
		case *ast.AutoLink:
			w.b.Write(c.URL(w.src))
		case *ast.Link:
			label := w.inline(c)
			w.b.WriteString(label)
			if dest := string(c.Destination); dest != "" && dest != label {
				w.b.WriteString(" (" + dest + ")")
			}
		case *ast.Image:
			w.b.WriteString(w.inline(c))
		case *ast.RawHTML:
			// Dropped, as in the html part.
		default:
			w.inlines(c)
		}
	}
}

func (w *textWriter) inline(n ast.Node) string {
	inner := &textWriter{src: w.src}
	inner.inlines(n)
	return inner.b.String()
}

// indentRest indents every line of s after the first by prefix.
func indentRest(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
