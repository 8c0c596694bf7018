//go:build ignore

// gen_names writes data/names.txt and data/words.txt.gz, the lists the name
// detector (names.go) embeds, from files in three Debian packages:
//
//	apt-get download libtext-names-perl ruby-faker wamerican
//	for f in *.deb; do dpkg-deb -x "$f" deb; done
//	go run gen_names.go -deb deb
//
// libtext-names-perl 0.46-2 carries the 1990 US Census lists of first names
// (1,219 male, 4,275 female) and its 1,000 most common surnames; the Census
// data is a work of the US government and in the public domain. ruby-faker
// 2.21.0-1 carries first names and surnames for many locales (Expat licence).
// wamerican 2020.12.07-2 is SCOWL's American English word list (size 50),
// whose lower-case words tell a name that is also a word ("Will", "Grace",
// "Jordan River") from one that is not.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// locales are the faker locales whose names are taken: those written in a
// cased script (the detector needs capitals), less nl (ten thousand first
// names and twenty thousand surnames, many of them also Dutch words) and
// vi (family name first, and first names such as An and Anh).
var locales = []string{
	"en/name", "en-AU", "en-IND", "en-MS", "en-NEP", "en-NG", "en-NZ", "en-PAK", "en-SG", "en-TH", "en-UG", "en-US", "en-ZA",
	"de", "de-AT", "de-CH", "fr/name", "fr-CA", "fr-CH", "it", "es", "es-AR", "es-MX", "pt", "pt-BR", "ca",
	"pl", "sk", "lt", "lv", "ee", "fi-FI", "sv", "nb-NO", "da-DK", "id", "tr", "mi-NZ", "ru", "uk", "bg",
}

func main() {
	deb := flag.String("deb", "deb", "folder the three .deb files were extracted into")
	flag.Parse()
	first, last := map[string]bool{}, map[string]bool{}
	census(filepath.Join(*deb, "usr/share/perl5/Text/Names.pm"), first, last)
	faker(filepath.Join(*deb, "usr/share/rubygems-integration/all/gems/faker-2.21.0/lib/locales"), first, last)
	words := dictionary(filepath.Join(*deb, "usr/share/dict/american-english"))

	var b bytes.Buffer
	b.WriteString(header)
	fmt.Fprintf(&b, "[first] %d\n", len(first))
	for _, n := range slices.Sorted(keys(first)) {
		b.WriteString(n + "\n")
	}
	fmt.Fprintf(&b, "[last] %d\n", len(last))
	for _, n := range slices.Sorted(keys(last)) {
		b.WriteString(n + "\n")
	}
	if err := os.WriteFile("data/names.txt", b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}

	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write([]byte(strings.Join(words, "\n") + "\n"))
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("data/words.txt.gz", z.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d first names, %d surnames, %d words", len(first), len(last), len(words))
}

func keys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// census reads Text::Names' three heredocs: NAME FREQ CUMULATIVE RANK, the
// surnames sometimes two to a line.
func census(path string, first, last map[string]bool) {
	src, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	for _, list := range []struct {
		name string
		into map[string]bool
	}{{"COMMON_MALE_FIRSTNAMES", first}, {"COMMON_FEMALE_FIRSTNAMES", first}, {"COMMON_SURNAMES", last}} {
		start := bytes.Index(src, []byte("$"+list.name+" = <<ENDNAMES;\n"))
		if start < 0 {
			log.Fatalf("%s: no %s", path, list.name)
		}
		body := src[start:]
		body = body[bytes.IndexByte(body, '\n')+1:]
		body = body[:bytes.Index(body, []byte("\nENDNAMES"))]
		n := 0
		for _, line := range strings.Split(string(body), "\n") {
			f := strings.Fields(line)
			for i := 0; i+3 < len(f); i += 4 {
				add(list.into, f[i])
				n++
			}
		}
		log.Printf("census %s: %d", list.name, n)
	}
}

var firstKey = regexp.MustCompile(`first_name|english_name|middle_name`)
var lastKey = regexp.MustCompile(`last_name|surname`)

// faker reads each locale's faker.name lists of plain names (templates such
// as "#{first_name}" are skipped).
func faker(dir string, first, last map[string]bool) {
	for _, loc := range locales {
		data, err := os.ReadFile(filepath.Join(dir, loc+".yml"))
		if err != nil {
			log.Fatal(err)
		}
		var doc map[string]struct {
			Faker struct {
				Name map[string]any `yaml:"name"`
			} `yaml:"faker"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			log.Fatalf("%s: %v", loc, err)
		}
		for _, d := range doc {
			for key, v := range d.Faker.Name {
				list, ok := v.([]any)
				if !ok {
					continue
				}
				var into map[string]bool
				switch {
				case firstKey.MatchString(key):
					into = first
				case lastKey.MatchString(key):
					into = last
				default:
					continue
				}
				for _, item := range list {
					s, ok := item.(string)
					if !ok || strings.Contains(s, "#{") {
						continue
					}
					// "Ana María", "van der Berg": each capitalised word.
					for _, w := range strings.Fields(s) {
						if r := []rune(w); unicode.IsUpper(r[0]) {
							add(into, w)
						}
					}
				}
			}
		}
	}
}

// add stores a name in lower case, as the detector looks it up.
func add(into map[string]bool, name string) {
	name = strings.ToLower(strings.TrimSpace(name))
	if len([]rune(name)) < 2 {
		return
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' {
			return
		}
	}
	into[name] = true
}

// dictionary returns the list's lower-case words, without possessives.
func dictionary(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := sc.Text()
		if w == "" || strings.Contains(w, "'") || !unicode.IsLower([]rune(w)[0]) {
			continue
		}
		out = append(out, w)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

const header = `# Personal names for package pii's name detector (--pii-ner).
# Generated by gen_names.go; do not edit. One name a line, lower-case.
#
# Sources, all from Debian 12 (bookworm) packages:
#
# - libtext-names-perl 0.46-2 (Text::Names by David Bourget): the 1990 US
#   Census lists of first names (1,219 male and 4,275 female) and of the
#   1,000 most common surnames. The Census data is a work of the United
#   States government and in the public domain.
#
# - ruby-faker 2.21.0-1 (faker, https://github.com/faker-ruby/faker): the
#   first names and surnames of its locales in cased scripts, less nl and vi
#   (see gen_names.go). Licence (Expat):
#
#   Copyright (c) 2007-2010 Benjamin Curtis
#
#   Permission is hereby granted, free of charge, to any person obtaining a
#   copy of this software and associated documentation files (the
#   "Software"), to deal in the Software without restriction, including
#   without limitation the rights to use, copy, modify, merge, publish,
#   distribute, sublicense, and/or sell copies of the Software, and to
#   permit persons to whom the Software is furnished to do so, subject to
#   the following conditions:
#
#   The above copyright notice and this permission notice shall be included
#   in all copies or substantial portions of the Software.
#
#   THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
#   OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
#   MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
#   IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
#   CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
#   TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
#   SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
#
# words.txt.gz, beside this file, holds the lower-case words of wamerican
# 2020.12.07-2 (SCOWL size 50 American English), one a line, which tell a
# name that is also a word from one that is not. Licence:
#
#   Copyright 2000-2011 by Kevin Atkinson
#
#   Permission to use, copy, modify, distribute and sell these word lists,
#   the associated scripts, the output created from the scripts, and its
#   documentation for any purpose is hereby granted without fee, provided
#   that the above copyright notice appears in all copies and that both
#   that copyright notice and this permission notice appear in supporting
#   documentation. Kevin Atkinson makes no representations about the
#   suitability of this array for any purpose. It is provided "as is"
#   without express or implied warranty.
#
#   (SCOWL also draws on other word lists under similar terms; their
#   notices are in /usr/share/doc/wamerican/copyright of the package.)
#
`
