package pii

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestRedactGolden(t *testing.T) {
	t.Parallel()
	in, err := os.ReadFile(filepath.Join("testdata", "mixed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, findings := Redact(string(in))
	golden := filepath.Join("testdata", "mixed.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("Redact(mixed.txt) (-want +got):\n%s", diff)
	}
	kinds := map[Kind]int{}
	for _, f := range findings {
		kinds[f.Kind]++
	}
	wantKinds := map[Kind]int{Email: 1, Phone: 2, Card: 1, Secret: 3}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("finding kinds (-want +got):\n%s", diff)
	}
}

func TestRedactNothing(t *testing.T) {
	t.Parallel()
	const text = "12|a3f9|RESERVE = 16_384\n"
	got, findings := Redact(text)
	if got != text || findings != nil {
		t.Errorf("Redact(%q) = %q, %v; want the text unchanged and no findings", text, got, findings)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want []Finding
	}{
		"empty": {nil, nil},
		"sorted by start": {
			[]Finding{{Phone, 20, 30}, {Email, 0, 10}},
			[]Finding{{Email, 0, 10}, {Phone, 20, 30}},
		},
		"higher kind wins an overlap": {
			[]Finding{{Phone, 0, 12}, {Card, 5, 20}, {Secret, 18, 40}},
			[]Finding{{Phone, 0, 12}, {Secret, 18, 40}},
		},
		"duplicates and nested spans": {
			[]Finding{{Secret, 10, 20}, {Secret, 10, 20}, {Secret, 12, 15}, {Secret, 5, 25}},
			[]Finding{{Secret, 5, 25}},
		},
		"touching spans both kept": {
			[]Finding{{Email, 10, 20}, {Phone, 0, 10}, {Card, 20, 30}},
			[]Finding{{Phone, 0, 10}, {Email, 10, 20}, {Card, 20, 30}},
		},
		"empty span dropped": {
			[]Finding{{Email, 3, 3}},
			nil,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, resolve(tc.in)); diff != "" {
				t.Errorf("resolve (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		want    Mode
		wantErr string
	}{
		"off":    {want: ModeOff},
		"redact": {want: ModeRedact},
		"refuse": {want: ModeRefuse},
		"":       {wantErr: `pii mode "": want off, redact or refuse`},
		"Redact": {wantErr: `pii mode "Redact": want off, redact or refuse`},
		"on":     {wantErr: `pii mode "on": want off, redact or refuse`},
	}
	for in, tc := range tests {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseMode(in)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("ParseMode(%q) error = %v, want %q", in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseMode(%q) = %v, %v; want %v", in, got, err, tc.want)
			}
			if got.String() != in {
				t.Errorf("%v.String() = %q, want %q", got, got.String(), in)
			}
		})
	}
}
