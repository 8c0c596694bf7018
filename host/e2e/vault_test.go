package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// contacts is a file full of personal data, and what it holds.
const contacts = "# Contacts\n" +
	"Jane: jane.doe@acme.io, +44 20 7946 0958\n" +
	"Bob: bob@corp.org, card 4111 1111 1111 1111\n" +
	"Escalations go to jane.doe@acme.io.\n" +
	"Docs write placeholders as ⟦email:1⟧.\n"

var contactValues = []string{"jane.doe@acme.io", "+44 20 7946 0958", "bob@corp.org", "4111 1111 1111 1111"}

// noValues fails the test if out holds any of contacts' values.
func noValues(t *testing.T, what, out string) {
	t.Helper()
	for _, v := range contactValues {
		if strings.Contains(out, v) {
			t.Errorf("%s holds %q:\n%s", what, v, out)
		}
	}
}

var placeholderRE = regexp.MustCompile(`⟦[a-z]+:[0-9]+⟧`)

// TestVaultEditsDataTheModelNeverSaw: under --pii redact --vault a model
// views a file of e-mail addresses, phone and card numbers as
// placeholders, edits it through replace_text with placeholders in old
// and new, and the file comes out right byte for byte; nothing the model,
// the activity feed, the log or the vault file holds has a value in the
// clear, and a restarted server gives the same placeholders.
func TestVaultEditsDataTheModelNeverSaw(t *testing.T) {
	t.Parallel()
	root, cfg := project(t), t.TempDir()
	path := filepath.Join(root, "contacts.txt")
	if err := os.WriteFile(path, []byte(contacts), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(root, ".agents", "skills"), "escalate", "Use when paging jane.doe@acme.io.", "Page jane.doe@acme.io, then bob@corp.org.\n")
	s := startStdio(t, root, "--cfg", cfg, "--write", "--groups", "shell", "--pii", "redact", "--vault")

	view := func() string {
		t.Helper()
		res, err := call(t, s.session, "view_file", map[string]any{"path": "contacts.txt"})
		if err != nil || res.IsError {
			t.Fatalf("view_file: %v %s\nstderr:\n%s", err, text(res), s.stderr)
		}
		return text(res)
	}
	seen := view()
	noValues(t, "view_file's result", seen)
	lines := strings.Split(seen, "\n")
	jane := placeholderRE.FindAllString(lines[1], -1)
	bob := placeholderRE.FindAllString(lines[2], -1)
	if len(jane) != 2 || len(bob) != 2 {
		t.Fatalf("want two placeholders on each of lines 2 and 3:\n%s", seen)
	}
	if !strings.Contains(lines[3], "Escalations go to "+jane[0]+".") {
		t.Errorf("the same address has another placeholder on line 4:\n%s", seen)
	}
	// The file's own "⟦email:1⟧" is text, shown behind a placeholder of
	// its own, never as the vault's first address.
	docs := placeholderRE.FindString(lines[4])
	if !strings.HasPrefix(docs, "⟦literal:") {
		t.Errorf("placeholder-shaped text in the file is shown as %q:\n%s", docs, seen)
	}

	res, err := call(t, s.session, "replace_text", map[string]any{
		"path": "contacts.txt",
		"old":  "Jane: " + jane[0] + ", " + jane[1],
		"new":  "Jane Doe: " + jane[0] + " (or " + bob[0] + "), " + jane[1],
	})
	if err != nil || res.IsError {
		t.Fatalf("replace_text with placeholders: %v %s", err, text(res))
	}
	noValues(t, "replace_text's result", text(res))
	res, err = call(t, s.session, "replace_text", map[string]any{
		"path": "contacts.txt", "old": "as " + docs + ".", "new": "as " + docs + " (U+27E6).",
	})
	if err != nil || res.IsError {
		t.Fatalf("replace_text of the literal: %v %s", err, text(res))
	}
	want := strings.Replace(contacts, "Jane: jane.doe@acme.io,", "Jane Doe: jane.doe@acme.io (or bob@corp.org),", 1)
	want = strings.Replace(want, "as ⟦email:1⟧.", "as ⟦email:1⟧ (U+27E6).", 1)
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Fatalf("file after the edits:\n%s\nwant:\n%s", got, want)
	}

	// A placeholder the server never gave out is refused, the file kept.
	res, err = call(t, s.session, "replace_text", map[string]any{"path": "contacts.txt", "old": "# Contacts", "new": "# ⟦email:99⟧"})
	if err != nil || !res.IsError || !strings.Contains(text(res), "email:99 is not a placeholder this server gave out") {
		t.Errorf("unknown placeholder: %v %q", err, text(res))
	}
	// A value written where the patterns would not know it (between a
	// letter and a digit, in a file name, in an error that quotes the
	// arguments) is still shown as its placeholder.
	card := bob[1]
	res, err = call(t, s.session, "create_file", map[string]any{"path": "n" + card + "n.txt", "content": "id A" + card + "9\n"})
	if err != nil || res.IsError {
		t.Fatalf("create_file with a placeholder: %v %s", err, text(res))
	}
	noValues(t, "create_file's result", text(res))
	res, err = call(t, s.session, "view_file", map[string]any{"path": "n" + card + "n.txt"})
	if err != nil || res.IsError || !strings.Contains(text(res), "id A"+card+"9") {
		t.Errorf("view of a value between a letter and a digit: %v %q", err, text(res))
	}
	noValues(t, "view_file's result", text(res))
	res, err = call(t, s.session, "list_files", map[string]any{})
	if err != nil || res.IsError || !strings.Contains(text(res), "n"+card+"n.txt") {
		t.Errorf("list_files with a value in a file name: %v %q", err, text(res))
	}
	noValues(t, "list_files' result", text(res))
	res, err = call(t, s.session, "create_file", map[string]any{"path": "../x" + card, "content": "x"})
	if err != nil || !res.IsError {
		t.Errorf("create_file outside the root: %v %q", err, text(res))
	}
	noValues(t, "create_file's error", text(res))
	// A skill file is data too.
	for _, uri := range []string{"skill://escalate", "ramabana://skills"} {
		sk, err := readResource(t, s.session, uri)
		if err != nil || !strings.Contains(sk, jane[0]) {
			t.Errorf("%s: %v\n%s", uri, err, sk)
		}
		noValues(t, uri, sk)
	}

	// A command could send the value anywhere: the shell refuses them.
	res, err = call(t, s.session, "run_command", map[string]any{"command": "echo " + jane[0]})
	if err != nil || !res.IsError || !strings.Contains(text(res), "run_command does not take vault placeholders") {
		t.Errorf("run_command with a placeholder: %v %q", err, text(res))
	}
	res, err = call(t, s.session, "run_command", map[string]any{"command": "cat contacts.txt"})
	if err != nil || res.IsError {
		t.Fatalf("run_command: %v %q", err, text(res))
	}
	noValues(t, "run_command's output", text(res))
	if !strings.Contains(text(res), jane[0]) {
		t.Errorf("run_command's output does not show the vault's placeholders:\n%s", text(res))
	}
	// A read tool searches for the value behind a placeholder.
	res, err = call(t, s.session, "search_code", map[string]any{"pattern": bob[1]})
	if err != nil || res.IsError || !strings.Contains(text(res), "contacts.txt:3:") {
		t.Errorf("search_code for a placeholder: %v %q", err, text(res))
	}
	noValues(t, "search_code's result", text(res))

	for _, tool := range []string{"activity", "changes"} {
		res, err := call(t, s.session, tool, map[string]any{})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", tool, err, text(res))
		}
		noValues(t, tool, text(res))
	}
	act, _ := call(t, s.session, "activity", map[string]any{})
	if !strings.Contains(text(act), "error: email:99 is not a placeholder") {
		t.Errorf("activity does not show the refused call as the model saw it:\n%s", text(act))
	}

	s.stop(t)
	noValues(t, "the server's log", s.stderr.String())
	if !strings.Contains(s.stderr.String(), "--vault with the shell group mounted") {
		t.Errorf("no warning that the shell can read the vault's key:\n%s", s.stderr)
	}
	entries, err := os.ReadDir(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "vault.") {
			continue
		}
		files = append(files, e.Name())
		b, err := os.ReadFile(filepath.Join(cfg, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		noValues(t, e.Name(), string(b))
		if info, _ := e.Info(); info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %04o, want 0600", e.Name(), info.Mode().Perm())
		}
	}
	if !strings.Contains(strings.Join(files, " "), "vault.db") || !strings.Contains(strings.Join(files, " "), "vault.key") {
		t.Errorf("config dir holds %v, want vault.db and vault.key", files)
	}

	// Restarted on the same config dir, the server gives the same
	// placeholders, in --pii refuse mode too (placeholders, not refusal).
	again := startStdio(t, root, "--cfg", cfg, "--pii", "refuse", "--vault")
	res, err = call(t, again.session, "view_file", map[string]any{"path": "contacts.txt"})
	if err != nil || res.IsError {
		t.Fatalf("view_file after a restart: %v %s", err, text(res))
	}
	if !strings.Contains(text(res), "Jane Doe: "+jane[0]+" (or "+bob[0]+"), "+jane[1]) {
		t.Errorf("after a restart the placeholders differ:\n%s", text(res))
	}
	st, err := readResource(t, again.session, "ramabana://status")
	var status struct{ PII map[string]any }
	if err == nil {
		err = json.Unmarshal([]byte(st), &status)
	}
	wantPII := map[string]any{"mode": "refuse", "names": false, "vault": filepath.Join(cfg, "vault.db")}
	if err != nil || fmt.Sprint(status.PII) != fmt.Sprint(wantPII) {
		t.Errorf("status's pii = %v, want %v (%v)", status.PII, wantPII, err)
	}
}

// TestVaultAgent: the ask agent's tool calls go through the vault: its
// model sees placeholders only, its edit with placeholders lands as the
// values, and its answer reaches the client with the vault's placeholders.
func TestVaultAgent(t *testing.T) {
	t.Parallel()
	root := project(t)
	path := filepath.Join(root, "contacts.txt")
	if err := os.WriteFile(path, []byte(contacts), 0o644); err != nil {
		t.Fatal(err)
	}
	// A new vault numbers the file's first address 1 and its first phone
	// number 1.
	model := newFakeModel(t,
		toolCall("call_1", "view_file", `{"path": "contacts.txt"}`),
		toolCall("call_2", "replace_text", `{"path": "contacts.txt", "old": "Jane: ⟦email:1⟧", "new": "Jane (on call): ⟦email:1⟧"}`),
		finalText("Jane is on call at ⟦email:1⟧, ⟦phone:1⟧."),
	)
	s := startStdio(t, root, "--model", "fake-model", "--model-url", model.srv.URL, "--pii", "redact", "--vault")
	res, err := call(t, s.session, "ask", map[string]any{"task": "mark Jane as on call"})
	if err != nil || res.IsError {
		t.Fatalf("ask: %v %s\nstderr:\n%s", err, text(res), s.stderr)
	}
	if text(res) != "Jane is on call at ⟦email:1⟧, ⟦phone:1⟧." {
		t.Errorf("ask's answer = %q, want the vault's placeholders kept", text(res))
	}
	sent, err := json.Marshal(model.sent())
	if err != nil {
		t.Fatal(err)
	}
	noValues(t, "what the agent's model was sent", string(sent))
	if !strings.Contains(string(sent), "⟦email:1⟧") {
		t.Errorf("the agent's model never saw a placeholder:\n%s", sent)
	}
	want := strings.Replace(contacts, "Jane: jane.doe@acme.io", "Jane (on call): jane.doe@acme.io", 1)
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("file after the agent's edit:\n%s\nwant:\n%s", got, want)
	}
}
