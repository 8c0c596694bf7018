package web

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/charmap"
)

// contentKind is how fetch_url treats a media type.
type contentKind int

const (
	kindBinary  contentKind = iota // refused
	kindText                       // returned as is
	kindHTML                       // converted to markdown
	kindUnknown                    // sniffed from the body
)

// textualApplication are application/* types that are text.
var textualApplication = map[string]bool{
	"json": true, "xml": true, "javascript": true, "ecmascript": true, "x-javascript": true,
	"yaml": true, "x-yaml": true, "toml": true, "x-toml": true, "sql": true, "graphql": true,
	"x-sh": true, "x-shellscript": true, "x-csh": true, "x-httpd-php": true, "x-php": true,
	"x-python": true, "x-ruby": true, "x-perl": true, "x-tex": true, "x-latex": true,
	"x-ndjson": true, "ndjson": true, "jsonl": true, "x-jsonlines": true, "csv": true,
	"x-www-form-urlencoded": true, "x-subrip": true, "typescript": true, "x-typescript": true,
	"rtf": true, "x-diff": true, "x-patch": true, "pgp-signature": true, "pgp-keys": true,
}

// classify says how a media type (lower case, no parameters) is treated.
func classify(mediaType string) contentKind {
	typ, sub, _ := strings.Cut(mediaType, "/")
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return kindHTML
	case typ == "text":
		return kindText
	case strings.HasSuffix(sub, "+json") || strings.HasSuffix(sub, "+xml"):
		return kindText
	case typ == "application" && textualApplication[sub]:
		return kindText
	case mediaType == "", mediaType == "application/octet-stream", mediaType == "binary/octet-stream",
		mediaType == "application/unknown", mediaType == "application/x-unknown", mediaType == "unknown/unknown":
		return kindUnknown
	}
	return kindBinary
}

// sniff classifies a body whose type was not declared: text if it has no
// NUL byte and reads as text, HTML if it also looks like HTML.
func sniff(body []byte) (contentKind, string) {
	head := body[:min(len(body), 8<<10)]
	detected, _, _ := mime.ParseMediaType(http.DetectContentType(head))
	if bytes.IndexByte(head, 0) >= 0 {
		return kindBinary, detected
	}
	if detected == "text/html" {
		return kindHTML, detected
	}
	if strings.HasPrefix(detected, "text/") || validUTF8Prefix(head) {
		return kindText, detected
	}
	return kindBinary, detected
}

// validUTF8Prefix is utf8.Valid, forgiving a rune cut at the end.
func validUTF8Prefix(b []byte) bool {
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return utf8.Valid(b)
}

// decodeText decodes body to valid UTF-8: a byte order mark or the
// Content-Type's charset wins, then an HTML <meta> charset, then UTF-8 if
// the whole body is valid UTF-8, then windows-1252 (which the web's
// "ISO-8859-1" means). It returns the charset it used.
func decodeText(body []byte, contentType string) (string, string) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && enc == charmap.Windows1252 && validUTF8Prefix(body) {
		return string(body), "utf-8"
	}
	if name == "utf-8" {
		return strings.ToValidUTF8(string(body), "\uFFFD"), name
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD"), "utf-8"
	}
	return strings.ToValidUTF8(string(out), "\uFFFD"), name
}

// page is an HTML page turned into markdown.
type page struct {
	title    string
	markdown string
	// part names the element converted alone ("main", "article"), or "".
	part string
}

// htmlToMarkdown converts an HTML page to markdown: page chrome (scripts,
// styles, navigation, banners, hidden elements, forms' controls) is left
// out, the main content alone is kept when the page marks it, and relative
// links and images are made absolute against the page's <base> or pageURL.
func htmlToMarkdown(ctx context.Context, src string, pageURL *url.URL) (*page, error) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	p := &page{}
	baseURL := pageURL
	var walkHead func(n *html.Node)
	walkHead = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Title:
				if p.title == "" {
					p.title = collapseSpace(textOf(n))
				}
			case atom.Base:
				if href, ok := attr(n, "href"); ok && baseURL == pageURL {
					if b, err := pageURL.Parse(strings.TrimSpace(href)); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
						baseURL = b
					}
				}
			case atom.Body:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walkHead(c)
		}
	}
	walkHead(doc)

	clean(doc, false)
	root := doc
	if body := find(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body }); body != nil {
		root = body
		if part, name := mainPart(body); part != nil {
			root, p.part = part, name
		}
	}

	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	md, err := conv.ConvertNode(root, converter.WithDomain(baseURL.String()), converter.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("convert html: %w", err)
	}
	p.markdown = strings.ToValidUTF8(string(md), "\uFFFD")
	return p, nil
}

// dropped are elements that never carry a page's content.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Svg: true,
	atom.Nav: true, atom.Template: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Canvas: true, atom.Button: true, atom.Select: true, atom.Audio: true, atom.Video: true,
	atom.Dialog: true, atom.Head: true, atom.Link: true, atom.Meta: true,
}

// droppedRoles are ARIA landmarks of page chrome.
var droppedRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "search": true,
	"menu": true, "menubar": true, "toolbar": true, "dialog": true, "alertdialog": true,
}

// clean removes page chrome under n in place. inContent says whether n is
// inside an article, main or section, where a header, footer or aside
// belongs to the content rather than to the page.
func clean(n *html.Node, inContent bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.CommentNode {
			n.RemoveChild(c)
			c = next
			continue
		}
		if c.Type != html.ElementNode {
			c = next
			continue
		}
		if drop(c, inContent) {
			n.RemoveChild(c)
			c = next
			continue
		}
		switch c.DataAtom {
		case atom.A:
			// A link to nowhere or to script is plain text; the converter
			// would otherwise link it to the page itself.
			href, _ := attr(c, "href")
			href = strings.TrimSpace(href)
			if href == "" || strings.HasPrefix(strings.ToLower(href), "javascript:") {
				clean(c, inContent)
				unwrap(c)
				c = next
				continue
			}
		case atom.Img:
			// Inline data images are kilobytes of base64 a model cannot see.
			if src, _ := attr(c, "src"); strings.HasPrefix(strings.TrimSpace(strings.ToLower(src)), "data:") {
				alt, _ := attr(c, "alt")
				if alt = collapseSpace(alt); alt != "" {
					n.InsertBefore(&html.Node{Type: html.TextNode, Data: alt}, c)
				}
				n.RemoveChild(c)
				c = next
				continue
			}
		}
		role, _ := attr(c, "role")
		clean(c, inContent || c.DataAtom == atom.Article || c.DataAtom == atom.Main || c.DataAtom == atom.Section ||
			role == "main" || role == "article")
		c = next
	}
}

func drop(n *html.Node, inContent bool) bool {
	if dropped[n.DataAtom] {
		return true
	}
	switch n.DataAtom {
	case atom.Header, atom.Footer, atom.Aside:
		if !inContent {
			return true
		}
	}
	role, _ := attr(n, "role")
	if droppedRoles[strings.ToLower(strings.TrimSpace(role))] {
		return true
	}
	if _, hidden := attr(n, "hidden"); hidden {
		return true
	}
	if v, _ := attr(n, "aria-hidden"); v == "true" {
		return true
	}
	if style, ok := attr(n, "style"); ok {
		style = strings.ToLower(strings.ReplaceAll(style, " ", ""))
		if strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden") {
			return true
		}
	}
	return false
}

// unwrap replaces n by its children.
func unwrap(n *html.Node) {
	parent := n.Parent
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		n.RemoveChild(c)
		parent.InsertBefore(c, n)
		c = next
	}
	parent.RemoveChild(n)
}

// mainPart is the one element the page marks as its main content (<main> or
// role=main, else a lone <article>), if it holds at least a quarter of the
// body's text; converting it alone leaves out sidebars and footers that
// are not marked up as such.
func mainPart(body *html.Node) (*html.Node, string) {
	var mains, articles []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			role, _ := attr(c, "role")
			switch {
			case c.DataAtom == atom.Main || role == "main":
				mains = append(mains, c)
				continue
			case c.DataAtom == atom.Article:
				articles = append(articles, c)
				continue
			}
			walk(c)
		}
	}
	walk(body)
	var part *html.Node
	name := ""
	switch {
	case len(mains) == 1:
		part, name = mains[0], "main"
	case len(mains) == 0 && len(articles) == 1:
		part, name = articles[0], "article"
	default:
		return nil, ""
	}
	total := len(strings.Join(strings.Fields(textOf(body)), ""))
	if total == 0 || 4*len(strings.Join(strings.Fields(textOf(part)), "")) < total {
		return nil, ""
	}
	return part, name
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, match); f != nil {
			return f
		}
	}
	return nil
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// plainText strips tags and entities from an HTML fragment, such as a
// search snippet with <strong> in it, and collapses white space.
func plainText(fragment string) string {
	if !strings.ContainsAny(fragment, "<&") {
		return collapseSpace(fragment)
	}
	z := html.NewTokenizer(strings.NewReader(fragment))
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return collapseSpace(b.String())
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			if name, _ := z.TagName(); string(name) == "br" || string(name) == "p" {
				b.WriteByte(' ')
			}
		}
	}
}
