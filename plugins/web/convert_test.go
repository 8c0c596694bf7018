package web

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestHTMLToMarkdown(t *testing.T) {
	t.Parallel()
	pageURL, _ := url.Parse("https://example.org/blog/post?id=3")
	tests := map[string]struct {
		html, want string
	}{
		"chrome by role and visibility": {
			`<body><div role="navigation">NAV</div><div role="banner">BANNER</div><p>kept</p>` +
				`<p aria-hidden="true">ARIA</p><p style="display: none">STYLE</p><div role="search">SEARCH</div></body>`,
			"kept",
		},
		"header and footer of an article are content": {
			`<body><header>SITE</header><article><header><h1>Post</h1></header><p>Text.</p><footer>By Ann</footer></article>` +
				`<aside>SIDEBAR</aside><footer>SITE FOOTER</footer></body>`,
			"# Post\n\nText.\n\nBy Ann",
		},
		"small main is not taken alone": {
			`<body><main><p>hi</p></main><div><p>` + strings.Repeat("much more text ", 20) + `</p></div></body>`,
			"hi\n\n" + strings.TrimSpace(strings.Repeat("much more text ", 20)),
		},
		"data images become their alt text": {
			`<body><p><img src="data:image/png;base64,` + strings.Repeat("A", 500) + `" alt="chart"> after</p></body>`,
			"chart after",
		},
		"links to nowhere are text": {
			`<body><p><a>anchor</a> <a href="  ">blank</a> <a href="JavaScript:go()">js</a> <a href="#sec">sec</a></p></body>`,
			"anchor blank js [sec](https://example.org/blog/post?id=3#sec)",
		},
		"forms' controls": {
			`<body><form><label>Name</label><input value="x"><button>Send</button><select><option>A</option></select></form></body>`,
			"Name",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := htmlToMarkdown(context.Background(), tc.html, pageURL)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, p.markdown); diff != "" {
				t.Errorf("markdown (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPageCache(t *testing.T) {
	t.Parallel()
	doc := func(n int) *document { return newDocument("h", strings.Repeat("x", n), "") }
	now := time.Now()
	tests := map[string]struct {
		put  []string // keys, each with a 10-byte document ("h" + 9 chars)
		big  string   // a key put with a document larger than the cache
		at   time.Duration
		want []string // keys found at now+at
	}{
		"kept":                {put: []string{"a", "b"}, want: []string{"a", "b"}},
		"oldest out by count": {put: []string{"a", "b", "c", "d"}, want: []string{"b", "c", "d"}},
		"expired":             {put: []string{"a"}, at: 2 * time.Minute},
		"too big not kept":    {put: []string{"a"}, big: "a", want: nil},
		"re-put replaces":     {put: []string{"a", "b", "a", "c"}, want: []string{"a", "b", "c"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := &pageCache{maxEntries: 3, maxBytes: 35, ttl: time.Minute}
			for _, k := range tc.put {
				c.put(k, doc(9), now)
			}
			if tc.big != "" {
				c.put(tc.big, doc(40), now)
			}
			var got []string
			for _, k := range []string{"a", "b", "c", "d"} {
				if _, ok := c.get(k, now.Add(tc.at)); ok {
					got = append(got, k)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("cached keys (-want +got):\n%s", diff)
			}
			if total := 10 * len(got); c.bytes != total {
				t.Errorf("bytes %d, want %d", c.bytes, total)
			}
		})
	}
}
