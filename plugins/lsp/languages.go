package lsp

import (
	"path/filepath"
	"strings"
)

// language is what the group knows of one language: the files it covers,
// the servers it tries, and how to talk to them.
type language struct {
	// name is the key of the language in the "lsp" entry of config.json
	// and in messages ("go", "python", "typescript").
	name  string
	title string // "Go", "Python", "TypeScript and JavaScript"
	// ids maps a file extension to the LSP language id.
	ids map[string]string
	// watched are the base names of the files, besides the language's
	// own, whose changes the server is told of (build and project files).
	watched []string
	// candidates are the commands tried on PATH, in order, when the
	// config names none.
	candidates [][]string
	// install says what to install when no candidate is found.
	install string
	// waitsForLoad says the server answers from a partial workspace until
	// it has loaded it (see server.awaitLoaded).
	waitsForLoad bool
}

var (
	golang = &language{
		name:       "go",
		title:      "Go",
		ids:        map[string]string{".go": "go"},
		watched:    []string{"go.mod", "go.sum", "go.work", "go.work.sum"},
		candidates: [][]string{{"gopls"}},
		install:    "install gopls (go install golang.org/x/tools/gopls@latest) so that it is on PATH",
	}
	python = &language{
		name:  "python",
		title: "Python",
		ids:   map[string]string{".py": "python", ".pyi": "python"},
		watched: []string{"pyproject.toml", "pyrightconfig.json", "setup.cfg", "setup.py",
			"requirements.txt"},
		candidates:   [][]string{{"pyright-langserver", "--stdio"}, {"basedpyright-langserver", "--stdio"}},
		install:      "install pyright (npm install -g pyright, or pip install pyright) or basedpyright so that pyright-langserver is on PATH",
		waitsForLoad: true,
	}
	typescript = &language{
		name:  "typescript",
		title: "TypeScript and JavaScript",
		ids: map[string]string{
			".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
			".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
		},
		watched:      []string{"tsconfig.json", "jsconfig.json", "package.json"},
		candidates:   [][]string{{"typescript-language-server", "--stdio"}},
		install:      "install typescript-language-server and typescript (npm install -g typescript-language-server typescript)",
		waitsForLoad: true,
	}
	languages = []*language{golang, python, typescript}
)

// languageOf is the language of a file by its name, or nil.
func languageOf(name string) *language {
	ext := strings.ToLower(filepath.Ext(name))
	for _, l := range languages {
		if _, ok := l.ids[ext]; ok {
			return l
		}
	}
	return nil
}

// languageID is the LSP language id of a file of l.
func (l *language) languageID(name string) string {
	return l.ids[strings.ToLower(filepath.Ext(name))]
}

// covers says whether changes to the file named name concern l's server.
func (l *language) covers(name string) bool {
	if _, ok := l.ids[strings.ToLower(filepath.Ext(name))]; ok {
		return true
	}
	base := filepath.Base(name)
	for _, w := range l.watched {
		if base == w {
			return true
		}
	}
	return false
}

// languageNames lists the languages for messages.
func languageNames() string {
	var names []string
	for _, l := range languages {
		names = append(names, l.title)
	}
	return strings.Join(names, ", ")
}
