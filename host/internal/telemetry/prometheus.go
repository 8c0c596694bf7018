package telemetry

// The Prometheus endpoint (--metrics), written here rather than with
// prometheus/client_golang and the OpenTelemetry Prometheus exporter, which
// cost the build and the start more than the few hundred lines below.
//
// On each scrape promHandler collects the registry's metrics for its reader
// and writes them in the text exposition format 0.0.4, with the process's
// own figures (process.go), as the exporter (v0.69) and client_golang's Go
// and process collectors (v1.24) wrote them, byte for byte
// (prometheus_test.go holds what they wrote, its lines kept for the kinds
// of instruments the registry has):
//
//   - names: the OTel name with every run of characters other than
//     [a-zA-Z0-9:] made one _, the unit's suffix (s gives _seconds, By
//     _bytes, {call} nothing), _total on counters (monotonic sums), _ratio
//     on gauges of unit 1; label names likewise, with . as _;
//   - each point's labels: its attributes, and the scope's otel_scope_name,
//     otel_scope_version and otel_scope_schema_url;
//   - the resource as target_info{...} 1;
//   - histograms as _bucket{le=...} (cumulative, up to +Inf), _sum, _count;
//     observed gauges as gauges;
//   - families sorted by name, series by label values; values formatted
//     as strconv's shortest %g, HELP and label values escaped.
//
// Where the exporter failed the whole scrape (two types under one name, an
// attribute key of the form __x__), this drops the one series or label.
// Not kept: content negotiation (protobuf, which promhttp also offered;
// Prometheus reads the format the Content-Type names), exemplars (the text
// format has none).

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
)

// promContentType is what client_golang's promhttp answered a scraper that
// asks for the text format, or for nothing in particular.
const promContentType = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"

// promHandler serves the metrics the registry collects for its reader,
// and the process's, for Prometheus. It is safe for concurrent use.
type promHandler struct {
	reg      *metrics.Registry
	reader   int
	resource attribute.Set
}

func (h promHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fams := families{}
	h.collect(fams)
	addRuntime(fams)
	addProcess(fams)
	var only map[string]bool // ?name[]=a&name[]=b, as promhttp
	if r.URL != nil {
		for _, n := range r.URL.Query()["name[]"] {
			if only == nil {
				only = map[string]bool{}
			}
			only[n] = true
		}
	}
	var buf bytes.Buffer
	for _, f := range fams.sorted() {
		if only == nil || only[f.name] {
			f.write(&buf)
		}
	}
	w.Header().Set("Content-Type", promContentType)
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		_, _ = gz.Write(buf.Bytes())
		_ = gz.Close()
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	_, _ = w.Write(buf.Bytes())
}

// acceptsGzip says whether an Accept-Encoding header takes gzip (as
// Prometheus' does).
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, ok := strings.CutPrefix(strings.TrimSpace(params), "q=")
		if !ok {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}

// collect adds the registry's metrics and target_info.
func (h promHandler) collect(fams families) {
	fams.add("target_info", "Target metadata", "gauge", series{labels: promLabels(&h.resource, nil), value: 1})
	c := h.reg.Collect(h.reader)
	scope := []label{
		{"otel_scope_name", c.Scope.Name},
		{"otel_scope_version", c.Scope.Version},
		{"otel_scope_schema_url", c.Scope.SchemaURL},
	}
	for _, m := range c.Metrics {
		switch {
		case m.Kind == metrics.KindObservableGauge:
			name := promName(m.Name, m.Unit, "ratio") // a gauge of unit 1 is a ratio
			for _, p := range m.Points {
				fams.add(name, m.Description, "gauge", series{labels: promLabels(&p.Attributes, scope), value: float64(p.Value)})
			}
		case m.Kind == metrics.KindHistogram:
			name := promName(m.Name, m.Unit, "histogram")
			for _, p := range m.Histograms {
				s := series{labels: promLabels(&p.Attributes, scope), sum: p.Sum, count: float64(p.Count)}
				var cumulative uint64
				for i, bound := range p.Bounds {
					cumulative += p.BucketCounts[i]
					s.points = append(s.points, point{bound, float64(cumulative)})
				}
				fams.add(name, m.Description, "histogram", s)
			}
		default: // a counter, observed or not
			name := promName(m.Name, m.Unit, "counter")
			for _, p := range m.Points {
				fams.add(name, m.Description, "counter", series{labels: promLabels(&p.Attributes, scope), value: float64(p.Value)})
			}
		}
	}
}

// A family is one metric name's HELP, TYPE and series.
type family struct {
	name, help, typ string // typ: counter, gauge, histogram or summary
	series          []series
}

type series struct {
	labels []label // sorted by name
	value  float64 // a counter's or gauge's
	// A histogram's buckets (upper bound, cumulative count) or a
	// summary's quantiles (quantile, value), with their sum and count.
	points     []point
	sum, count float64
}

type label struct{ name, value string }

type point struct{ at, value float64 }

// families are a scrape's, by name.
type families map[string]*family

// add adds a series to its family. The first help and type of a name win
// (as in the exporter); a series of another type under the same name is
// dropped.
func (fams families) add(name, help, typ string, s series) {
	if name == "" {
		return
	}
	f := fams[name]
	if f == nil {
		f = &family{name: name, help: help, typ: typ}
		fams[name] = f
	}
	if f.typ == typ {
		f.series = append(f.series, s)
	}
}

func (fams families) gauge(name, help string, v float64) {
	fams.add(name, help, "gauge", series{value: v})
}

func (fams families) counter(name, help string, v float64) {
	fams.add(name, help, "counter", series{value: v})
}

// sorted are the families by name, each's series by their label values.
func (fams families) sorted() []*family {
	out := make([]*family, 0, len(fams))
	for _, f := range fams {
		slices.SortStableFunc(f.series, func(a, b series) int {
			if c := cmp.Compare(len(a.labels), len(b.labels)); c != 0 {
				return c
			}
			for i := range a.labels {
				if c := strings.Compare(a.labels[i].value, b.labels[i].value); c != 0 {
					return c
				}
			}
			return 0
		})
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *family) int { return strings.Compare(a.name, b.name) })
	return out
}

// write writes the family in the text format.
func (f *family) write(b *bytes.Buffer) {
	b.WriteString("# HELP " + f.name + " ")
	helpEscaper.WriteString(b, f.help)
	b.WriteString("\n# TYPE " + f.name + " " + f.typ + "\n")
	for _, s := range f.series {
		switch f.typ {
		case "histogram":
			inf := false
			for _, p := range s.points {
				writeSample(b, f.name+"_bucket", s.labels, "le", p.at, p.value)
				inf = inf || math.IsInf(p.at, +1)
			}
			if !inf {
				writeSample(b, f.name+"_bucket", s.labels, "le", math.Inf(+1), s.count)
			}
		case "summary":
			for _, p := range s.points {
				writeSample(b, f.name, s.labels, "quantile", p.at, p.value)
			}
		default:
			writeSample(b, f.name, s.labels, "", 0, s.value)
			continue
		}
		writeSample(b, f.name+"_sum", s.labels, "", 0, s.sum)
		writeSample(b, f.name+"_count", s.labels, "", 0, s.count)
	}
}

// writeSample writes a line, name{labels} value: with a last label
// (le, quantile) when extra is set.
func writeSample(b *bytes.Buffer, name string, labels []label, extra string, extraValue, value float64) {
	b.WriteString(name)
	if len(labels) > 0 || extra != "" {
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l.name + `="`)
			labelEscaper.WriteString(b, l.value)
			b.WriteByte('"')
		}
		if extra != "" {
			if len(labels) > 0 {
				b.WriteByte(',')
			}
			b.WriteString(extra + `="` + formatFloat(extraValue) + `"`)
		}
		b.WriteByte('}')
	}
	b.WriteString(" " + formatFloat(value) + "\n")
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// formatFloat formats a value as the text format (and expfmt) does.
func formatFloat(f float64) string {
	switch {
	case f == 1:
		return "1"
	case f == 0:
		return "0"
	case f == -1:
		return "-1"
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, +1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// promLabels are the attributes as labels (the key's name escaped; keys
// that escape alike share a label, their values sorted and joined with ;),
// with more, sorted by name.
func promLabels(attrs *attribute.Set, more []label) []label {
	values := map[string][]string{}
	if attrs != nil {
		for it := attrs.Iter(); it.Next(); {
			kv := it.Attribute()
			name := promLabelName(string(kv.Key))
			if name == "" {
				continue
			}
			values[name] = append(values[name], kv.Value.String())
		}
	}
	labels := slices.Clone(more)
	for name, vs := range values {
		slices.Sort(vs)
		labels = append(labels, label{name, strings.Join(vs, ";")})
	}
	slices.SortFunc(labels, func(a, b label) int { return strings.Compare(a.name, b.name) })
	return labels
}

// promLabelName escapes an attribute's key: each run of characters other
// than [a-zA-Z0-9] is one _, a leading digit gets key_ before it. "" (no
// label) for a key that is underscores alone, or of the form __x__, which
// Prometheus reserves.
func promLabelName(key string) string {
	if len(key) >= 4 && strings.HasPrefix(key, "__") && strings.HasSuffix(key, "__") {
		return ""
	}
	var b strings.Builder
	underscore := false
	for _, r := range key {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			underscore = false
		} else if !underscore {
			b.WriteByte('_')
			underscore = true
		}
	}
	name := b.String()
	if name == "" || name == "_" {
		return ""
	}
	if name[0] >= '0' && name[0] <= '9' {
		name = "key_" + name
	}
	return name
}

// promName is an instrument's Prometheus name (the specification's
// UnderscoreEscapingWithSuffixes): its name's runs of [a-zA-Z0-9:] joined
// by _, the unit's suffixes, then _total for a counter or _ratio for a
// gauge ("ratio") of unit 1. kind is counter, gauge, ratio or histogram.
func promName(name, unit, kind string) string {
	tokens := strings.FieldsFunc(name, func(r rune) bool { return !isNameChar(r) })
	mainUnit, perUnit := unit, ""
	if i := strings.IndexByte(unit, '/'); i >= 0 {
		mainUnit, perUnit = unit[:i], strings.TrimSpace(unit[i+1:])
	}
	mainUnit = strings.TrimSpace(mainUnit)
	if mainUnit == "" || strings.ContainsAny(mainUnit, "{}") {
		mainUnit = ""
	} else if u, ok := unitNames[mainUnit]; ok {
		mainUnit = u
	}
	if perUnit == "" || strings.ContainsAny(perUnit, "{}") {
		perUnit = ""
	} else {
		if u, ok := perUnitNames[perUnit]; ok {
			perUnit = u
		}
		perUnit = "per_" + perUnit
	}
	mainUnit, perUnit = cleanUnit(mainUnit), cleanUnit(perUnit)
	if slices.Contains(tokens, mainUnit) {
		mainUnit = ""
	}
	if perUnit == "per_" {
		perUnit = ""
	} else if perUnit = strings.TrimSuffix(perUnit, "_"); slices.Contains(tokens, perUnit) {
		perUnit = ""
	}
	if perUnit != "" {
		mainUnit = strings.TrimSuffix(mainUnit, "_")
	}
	for _, s := range []string{mainUnit, perUnit} {
		if s != "" {
			tokens = append(tokens, s)
		}
	}
	switch {
	case kind == "counter":
		tokens = append(slices.DeleteFunc(tokens, func(t string) bool { return t == "total" }), "total")
	case kind == "ratio" && unit == "1":
		tokens = append(slices.DeleteFunc(tokens, func(t string) bool { return t == "ratio" }), "ratio")
	}
	n := strings.Join(tokens, "_")
	if n != "" && n[0] >= '0' && n[0] <= '9' {
		n = "_" + n
	}
	return n
}

func isNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ':'
}

// cleanUnit makes a unit's suffix a name's: other characters _, runs of _
// one, no leading _.
func cleanUnit(u string) string {
	var b strings.Builder
	underscore := false
	for _, r := range u {
		if isNameChar(r) {
			b.WriteRune(r)
			underscore = false
		} else if !underscore {
			b.WriteByte('_')
			underscore = true
		}
	}
	return strings.TrimPrefix(b.String(), "_")
}

// unitNames and perUnitNames spell UCUM units as Prometheus does.
var (
	unitNames = map[string]string{
		"d": "days", "h": "hours", "min": "minutes", "s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds",
		"By": "bytes", "KiBy": "kibibytes", "MiBy": "mebibytes", "GiBy": "gibibytes", "TiBy": "tibibytes",
		"KBy": "kilobytes", "MBy": "megabytes", "GBy": "gigabytes", "TBy": "terabytes",
		"m": "meters", "V": "volts", "A": "amperes", "J": "joules", "W": "watts", "g": "grams",
		"Cel": "celsius", "Hz": "hertz", "1": "", "%": "percent",
	}
	perUnitNames = map[string]string{"s": "second", "m": "minute", "h": "hour", "d": "day", "w": "week", "mo": "month", "y": "year"}
)
