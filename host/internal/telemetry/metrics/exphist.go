package metrics

import (
	"fmt"
	"math"
	"slices"
)

// ExpBuckets are one side's (positive or negative) buckets of a base-2
// exponential histogram: Counts[i] counts the measurements in bucket
// Offset+i, whose bounds are (base^(Offset+i), base^(Offset+i+1)] with
// base = 2^(2^-scale).
type ExpBuckets struct {
	Offset int32
	Counts []uint64
}

// The scale range of OpenTelemetry's base-2 exponential histogram: at
// expHistMaxScale a bucket is 2^(2^-20) wide, at expHistMinScale three buckets
// cover every finite float64.
const (
	expHistMaxScale = 20
	expHistMinScale = -10
)

// expHistogram aggregates float64 measurements into a base-2 exponential
// bucket histogram, as OpenTelemetry's metrics SDK specifies it ("Base2
// Exponential Bucket Histogram Aggregation") with a zero threshold of 0.
//
// It starts at scale maxScale and never raises it. When a measurement's
// bucket would stretch its side's populated range beyond maxSize buckets,
// the scale goes down by the least amount that makes it fit, and both sides
// (which share one scale) merge their buckets accordingly. A measurement
// that fits at no scale down to -10 (possible only with maxSize 1 or 2) is
// dropped. For the same sequence of measurements, maxSize and maxScale, the
// result (scale, zero count, offsets and counts) is the same as the
// OpenTelemetry Go SDK's (go.opentelemetry.io/otel/sdk/metric v1.47.0).
//
// Use newExpHistogram; the zero value is not usable. An expHistogram is not
// safe for concurrent use.
type expHistogram struct {
	maxSize   int
	scale     int32
	zeroCount uint64
	// pos and neg are the populated ranges of each side: their first and
	// last counts are non-zero, and an empty side has Offset 0.
	pos, neg ExpBuckets
}

// newExpHistogram returns an empty histogram at scale maxScale that keeps at
// most maxSize buckets per side. It panics unless maxSize >= 1 and maxScale
// is within [-10, 20].
func newExpHistogram(maxSize int, maxScale int32) *expHistogram {
	if maxSize < 1 || maxScale < expHistMinScale || maxScale > expHistMaxScale {
		panic(fmt.Sprintf("metrics: invalid exponential histogram maxSize %d or maxScale %d", maxSize, maxScale))
	}
	return &expHistogram{maxSize: maxSize, scale: maxScale}
}

// record adds v: 0 counts in ZeroCount (zero threshold 0), positive values in
// the positive buckets, negative ones (by absolute value) in the negative
// ones; NaN and ±Inf are ignored (as the SDK does). When v's bucket does not
// fit in maxSize buckets, the scale goes down (both sides share one scale)
// until it does.
func (h *expHistogram) record(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	if v == 0 {
		h.zeroCount++
		return
	}
	b := &h.pos
	if v < 0 {
		b, v = &h.neg, -v
	}
	bin := h.index(v)
	if delta := h.scaleChange(b, bin); delta > 0 {
		if h.scale-delta < expHistMinScale {
			return // No scale can hold it: the SDK drops it too.
		}
		h.scale -= delta
		h.pos.downscale(delta)
		h.neg.downscale(delta)
		// Recomputed rather than bin>>delta, as the SDK does: the two can
		// differ by one next to a bucket boundary when scale was > 0.
		bin = h.index(v)
	}
	b.add(bin)
}

// snapshot returns the scale, zero count and copies of both sides' buckets
// (Counts trimmed to the populated range; an empty side is ExpBuckets{}),
// safe to keep after later records.
func (h *expHistogram) snapshot() (scale int32, zeroCount uint64, positive, negative ExpBuckets) {
	return h.scale, h.zeroCount, h.pos.clone(), h.neg.clone()
}

// index returns the index, at the current scale, of the bucket holding the
// finite positive v: the i with base^i < v <= base^(i+1), so that an exact
// power of two lands in the lower bucket. For scale <= 0 it is exact, from
// the binary exponent; for scale > 0 it uses the logarithm of the fraction,
// as the SDK does, which can be off by one within an ulp or so of a bucket
// boundary (but is exact for powers of two).
func (h *expHistogram) index(v float64) int32 {
	frac, exp := math.Frexp(v) // v = frac * 2^exp, frac in [0.5, 1)
	if h.scale <= 0 {
		// The bucket at scale 0 is exp-1, or exp-2 for an exact power of
		// two (frac 0.5); each lower scale halves it, rounding down.
		correction := 1
		if frac == 0.5 {
			correction = 2
		}
		return int32(exp-correction) >> -h.scale
	}
	// log2(v)*2^scale = exp<<scale + log2(frac)*2^scale, whose second term
	// is in [-2^scale, 0): truncating it towards zero takes the ceiling, so
	// subtracting 1 gives ceil(log2(v)*2^scale) - 1.
	return int32(exp)<<h.scale + int32(math.Log(frac)*scaleFactors[h.scale]) - 1
}

// scaleFactors[s] is 2^s/ln(2), turning a natural logarithm into a bucket
// index at scale s.
var scaleFactors = func() (f [expHistMaxScale + 1]float64) {
	for s := range f {
		f[s] = math.Ldexp(math.Log2E, s)
	}
	return f
}()

// scaleChange returns by how much the scale must go down for bin to be
// recorded into b without b spanning more than maxSize buckets: 0 if it fits
// already, more than scale+10 if no scale down to -10 is enough.
func (h *expHistogram) scaleChange(b *ExpBuckets, bin int32) int32 {
	if len(b.Counts) == 0 {
		return 0
	}
	// The span from b's first bucket to bin, or from bin to b's last bucket
	// if bin is below b. This is the SDK's measure: it differs from the
	// span of b and bin together only when bin is inside b, where it only
	// matters if b already holds more than maxSize buckets.
	low, high := int(b.Offset), int(bin)
	if bin <= b.Offset {
		low, high = int(bin), int(b.Offset)+len(b.Counts)-1
	}
	var delta int32
	for high-low >= h.maxSize && h.scale-delta >= expHistMinScale {
		low >>= 1
		high >>= 1
		delta++
	}
	return delta
}

// add counts one measurement in bucket bin, widening b's range to hold it.
func (b *ExpBuckets) add(bin int32) {
	switch {
	case len(b.Counts) == 0:
		b.Offset = bin
		b.Counts = append(b.Counts, 0)
	case bin < b.Offset:
		n := int(b.Offset) - int(bin)
		b.Counts = slices.Grow(b.Counts, n)[:len(b.Counts)+n]
		copy(b.Counts[n:], b.Counts)
		clear(b.Counts[:n])
		b.Offset = bin
	case int(bin)-int(b.Offset) >= len(b.Counts):
		b.Counts = append(b.Counts, make([]uint64, int(bin)-int(b.Offset)-len(b.Counts)+1)...)
	}
	b.Counts[bin-b.Offset]++
}

// downscale lowers b's scale by delta > 0: bucket i becomes bucket i>>delta,
// merging each run of 2^delta buckets into one.
func (b *ExpBuckets) downscale(delta int32) {
	if len(b.Counts) == 0 {
		return
	}
	offset := b.Offset >> delta
	n := 0 // buckets written so far at the new scale
	for i, c := range b.Counts {
		// j never exceeds i, so the merge can run in place.
		j := int((b.Offset+int32(i))>>delta - offset)
		if j == n {
			b.Counts[j] = c
			n++
		} else {
			b.Counts[j] += c
		}
	}
	b.Offset = offset
	b.Counts = b.Counts[:n]
}

// clone returns a copy of b that shares no memory with it, ExpBuckets{} if
// b is empty.
func (b *ExpBuckets) clone() ExpBuckets {
	if len(b.Counts) == 0 {
		return ExpBuckets{}
	}
	return ExpBuckets{Offset: b.Offset, Counts: slices.Clone(b.Counts)}
}
