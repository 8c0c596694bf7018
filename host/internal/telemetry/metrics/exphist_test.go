package metrics

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// expState is everything snapshot returns, comparable with reflect.DeepEqual
// (so an empty side must be exactly ExpBuckets{}).
type expState struct {
	Scale     int32
	ZeroCount uint64
	Pos, Neg  ExpBuckets
}

func snapshotState(h *expHistogram) expState {
	var s expState
	s.Scale, s.ZeroCount, s.Pos, s.Neg = h.snapshot()
	return s
}

func recordAll(h *expHistogram, vals ...float64) {
	for _, v := range vals {
		h.record(v)
	}
}

func checkState(t *testing.T, h *expHistogram, want expState) {
	t.Helper()
	if got := snapshotState(h); !reflect.DeepEqual(got, want) {
		t.Errorf("snapshot = %+v, want %+v", got, want)
	}
}

// TestExpHistogramIndex checks single values, including exact powers of two
// (which belong to the lower bucket: bucket i is (base^i, base^(i+1)]),
// against hand-worked bucket indexes.
func TestExpHistogramIndex(t *testing.T) {
	tests := []struct {
		scale int32
		v     float64
		want  int32
	}{
		// Scale 0, base 2: bucket i is (2^i, 2^(i+1)].
		{0, 1, -1},
		{0, 2, 0},
		{0, 3, 1},
		{0, 4, 1},
		{0, math.Nextafter(4, 5), 2},
		{0, 0.5, -2},
		{0, 0.75, -1},
		{0, 1.5, 0},
		// Scale 1, base √2: bucket i is (2^(i/2), 2^((i+1)/2)].
		{1, 1, -1},
		{1, 1.2, 0},  // (1, 1.414]
		{1, 1.5, 1},  // (1.414, 2]
		{1, 2, 1},    // upper bound of (1.414, 2]
		{1, 2.5, 2},  // (2, 2.828]
		{1, 3, 3},    // (2.828, 4]
		{1, 4, 3},    // upper bound of (2.828, 4]
		{1, 0.5, -3}, // upper bound of (0.354, 0.5]
		// Scale 2, base 2^(1/4) ≈ 1.189.
		{2, 1, -1},
		{2, 1.1, 0},  // (1, 1.189]
		{2, 1.25, 1}, // (1.189, 1.414]
		{2, 2, 3},    // (1.682, 2]
		// Scale 20: the SDK's limits (floor(log2(v)*2^20)).
		{20, 1, -1},
		{20, math.Nextafter(1, 2), 0},
		{20, 2, 1<<20 - 1},
		{20, math.MaxFloat64, 1073741823},
		{20, math.SmallestNonzeroFloat64, -1126170625},
		{20, 0x1p-1022, -1022<<20 - 1},
		// Scale -1, base 4: bucket i is (4^i, 4^(i+1)].
		{-1, 1, -1},
		{-1, 2, 0},
		{-1, 4, 0},
		{-1, 5, 1},
		{-1, 16, 1},
		{-1, 17, 2},
		{-1, 0.25, -2},
		{-1, 0.3, -1},
		// Scale -2, base 16.
		{-2, 1, -1},
		{-2, 16, 0},
		{-2, 17, 1},
		{-2, 256, 1},
		{-2, 257, 2},
		// Scale -10, base 2^1024: three buckets hold every finite float64.
		{-10, 1, -1},
		{-10, 2, 0},
		{-10, math.MaxFloat64, 0},
		{-10, 0x1p-1023, -1},
		{-10, 0x1p-1024, -2},
		{-10, math.SmallestNonzeroFloat64, -2},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("scale %d %v", tt.scale, tt.v), func(t *testing.T) {
			h := newExpHistogram(160, tt.scale)
			recordAll(h, tt.v, -tt.v)
			b := ExpBuckets{Offset: tt.want, Counts: []uint64{1}}
			checkState(t, h, expState{Scale: tt.scale, Pos: b, Neg: b})
		})
	}
}

// TestExpHistogramPowersOfTwo checks 2^k at every scale against the spec's
// definition, ceil(k*2^scale) - 1, and its neighbours at scales >= 0.
func TestExpHistogramPowersOfTwo(t *testing.T) {
	for scale := int32(expHistMinScale); scale <= expHistMaxScale; scale++ {
		for _, k := range []int{-1074, -1030, -1022, -7, -1, 0, 1, 3, 64, 1000, 1023} {
			p := math.Ldexp(1, k)
			want := int32(math.Ceil(math.Ldexp(float64(k), int(scale)))) - 1
			cases := []struct {
				v    float64
				want int32
			}{{p, want}}
			if scale >= 0 && k > -1074 {
				// 2^k is an upper bound at scale >= 0: the next float is in
				// the next bucket, the previous one in the same. (After
				// 2^-1074 comes 2^-1073, and before it 0.)
				cases = append(cases, struct {
					v    float64
					want int32
				}{math.Nextafter(p, math.Inf(1)), want + 1})
				cases = append(cases, struct {
					v    float64
					want int32
				}{math.Nextafter(p, 0), want})
			}
			for _, c := range cases {
				h := newExpHistogram(160, scale)
				h.record(c.v)
				if _, _, pos, _ := h.snapshot(); pos.Offset != c.want {
					t.Errorf("scale %d: %v (2^%d) in bucket %d, want %d", scale, c.v, k, pos.Offset, c.want)
				}
			}
		}
	}
}

func TestExpHistogramZeroAndNegative(t *testing.T) {
	h := newExpHistogram(160, 0)
	recordAll(h, 0, math.Copysign(0, -1), -1, -3, 2, 0)
	checkState(t, h, expState{
		Scale:     0,
		ZeroCount: 3,
		Pos:       ExpBuckets{Offset: 0, Counts: []uint64{1}},        // 2 in (1, 2]
		Neg:       ExpBuckets{Offset: -1, Counts: []uint64{1, 0, 1}}, // |-1| in (1/2, 1], |-3| in (2, 4]
	})

	// Only zeros and negatives: the positive side stays empty.
	h = newExpHistogram(160, 0)
	recordAll(h, 0, -4)
	checkState(t, h, expState{ZeroCount: 1, Neg: ExpBuckets{Offset: 1, Counts: []uint64{1}}})
}

// TestExpHistogramDownscale follows maxSize 4 through 1, 2, 4, 8, 16 from
// scale 20, checking each step by hand.
func TestExpHistogramDownscale(t *testing.T) {
	h := newExpHistogram(4, 20)
	steps := []struct {
		v    float64
		want expState
	}{
		// 1 is bucket -1 at any scale.
		{1, expState{Scale: 20, Pos: ExpBuckets{Offset: -1, Counts: []uint64{1}}}},
		// 2 is bucket 2^s-1: -1..2^s-1 spans 2^s+1 buckets, first < 4 at
		// scale 1, where 2 is bucket 1 ((√2, 2]).
		{2, expState{Scale: 1, Pos: ExpBuckets{Offset: -1, Counts: []uint64{1, 0, 1}}}},
		// 4 is bucket 3 at scale 1: -1..3 is 5 buckets, so scale 0, where
		// bucket 1 of scale 1 merges into bucket 0 and 4 is bucket 1.
		{4, expState{Scale: 0, Pos: ExpBuckets{Offset: -1, Counts: []uint64{1, 1, 1}}}},
		// 8 is bucket 2: -1..2 fits in 4.
		{8, expState{Scale: 0, Pos: ExpBuckets{Offset: -1, Counts: []uint64{1, 1, 1, 1}}}},
		// 16 is bucket 3: 5 buckets, so scale -1 (base 4): (1/4, 1] holds
		// 1, (1, 4] holds 2 and 4, (4, 16] holds 8 and 16.
		{16, expState{Scale: -1, Pos: ExpBuckets{Offset: -1, Counts: []uint64{1, 2, 2}}}},
	}
	for _, s := range steps {
		h.record(s.v)
		checkState(t, h, s.want)
	}
}

// TestExpHistogramSharedScale checks that a downscale forced by one side
// applies to the other side too.
func TestExpHistogramSharedScale(t *testing.T) {
	h := newExpHistogram(4, 0)
	recordAll(h, -1, -2, -4, -8) // buckets -1..2 at scale 0: full
	checkState(t, h, expState{Neg: ExpBuckets{Offset: -1, Counts: []uint64{1, 1, 1, 1}}})
	// Positive 1 and 16 (buckets -1 and 3) need scale -1, which merges the
	// negative buckets 0 and 1 (2 and 4 in (1, 4]).
	recordAll(h, 1, 16)
	checkState(t, h, expState{
		Scale: -1,
		Pos:   ExpBuckets{Offset: -1, Counts: []uint64{1, 0, 1}},
		Neg:   ExpBuckets{Offset: -1, Counts: []uint64{1, 2, 1}},
	})
}

func TestExpHistogramNeverExceedsMaxScale(t *testing.T) {
	for _, maxScale := range []int32{-10, -3, 0, 5, 20} {
		h := newExpHistogram(160, maxScale)
		if scale, _, _, _ := h.snapshot(); scale != maxScale {
			t.Errorf("maxScale %d: empty histogram at scale %d", maxScale, scale)
		}
		// 1 and 1.0001 are buckets -1 and 151 at scale 20: they fit in 160
		// buckets at any scale <= 20, so the scale stays at maxScale.
		recordAll(h, 1, 1.0001, -1.0001, 0)
		if scale, _, _, _ := h.snapshot(); scale != maxScale {
			t.Errorf("maxScale %d: scale %d after 1, 1.0001", maxScale, scale)
		}
		recordAll(h, 1e-300, 1e300, 3, 7)
		if scale, _, _, _ := h.snapshot(); scale > maxScale {
			t.Errorf("maxScale %d: scale %d after a wide range", maxScale, scale)
		}
	}
}

func TestExpHistogramMaxSizeOne(t *testing.T) {
	// 1.5 and 1.9 first share a bucket at scale 1: (√2, 2].
	h := newExpHistogram(1, 20)
	recordAll(h, 1.5, 1.9)
	checkState(t, h, expState{Scale: 1, Pos: ExpBuckets{Offset: 1, Counts: []uint64{2}}})

	// 1 and 2 share no bucket even at scale -10 ((2^-1024, 1] and
	// (1, 2^1024]): 2 is dropped and nothing changes, as in the SDK.
	h = newExpHistogram(1, 20)
	recordAll(h, 1, 2)
	checkState(t, h, expState{Scale: 20, Pos: ExpBuckets{Offset: -1, Counts: []uint64{1}}})
}

func TestExpHistogramIgnoresNaNAndInf(t *testing.T) {
	h := newExpHistogram(160, 20)
	recordAll(h, math.NaN(), math.Inf(1), math.Inf(-1))
	checkState(t, h, expState{Scale: 20})

	recordAll(h, 1, math.Inf(1), math.NaN(), -1, math.Inf(-1))
	b := ExpBuckets{Offset: -1, Counts: []uint64{1}}
	checkState(t, h, expState{Scale: 20, Pos: b, Neg: b})
}

func TestExpHistogramSnapshotIsACopy(t *testing.T) {
	h := newExpHistogram(4, 0)
	recordAll(h, 1, 2, -1)
	scale, zero, pos, neg := h.snapshot()

	// Later records, including a downscale, leave the snapshot alone...
	recordAll(h, 1, 2, 64, -1, 0)
	got := expState{scale, zero, pos, neg}
	b := ExpBuckets{Offset: -1, Counts: []uint64{1, 1}}
	if want := (expState{Scale: 0, Pos: b, Neg: ExpBuckets{Offset: -1, Counts: []uint64{1}}}); !reflect.DeepEqual(got, want) {
		t.Errorf("earlier snapshot = %+v, want %+v", got, want)
	}

	// ... and changing a snapshot leaves the histogram alone.
	_, _, pos, neg = h.snapshot()
	pos.Counts[0] = 100
	neg.Counts[0] = 100
	// 64 is bucket 5 at scale 0: -1..5 is 7 buckets, so scale -1 (base 4):
	// 1, 1 in (1/4, 1]; 2, 2 in (1, 4]; none in (4, 16]; 64 in (16, 64].
	checkState(t, h, expState{
		Scale:     -1,
		ZeroCount: 1,
		Pos:       ExpBuckets{Offset: -1, Counts: []uint64{2, 2, 0, 1}},
		Neg:       ExpBuckets{Offset: -1, Counts: []uint64{2}},
	})
}

func TestNewExpHistogramPanicsOnInvalidConfig(t *testing.T) {
	for _, c := range []struct {
		maxSize  int
		maxScale int32
	}{{0, 20}, {-1, 0}, {160, 21}, {160, -11}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newExpHistogram(%d, %d) did not panic", c.maxSize, c.maxScale)
				}
			}()
			newExpHistogram(c.maxSize, c.maxScale)
		}()
	}
}

// TestExpHistogramSDKCases ports testExpoHistogramDataPointRecord,
// testExpoHistogramDataPointRecordFloat64 and TestSubNormal from the
// OpenTelemetry Go SDK's exponential_histogram_test.go (v1.47.0): each value
// is recorded as v and -v, at maxScale 20.
func TestExpHistogramSDKCases(t *testing.T) {
	tests := []struct {
		maxSize    int
		values     []float64
		wantOffset int32
		wantCounts []uint64
		wantScale  int32
	}{
		{4, []float64{2, 4, 1}, -1, []uint64{1, 1, 1}, 0},
		{4, []float64{4, 4, 4, 2, 16, 1}, -1, []uint64{1, 4, 1}, -1},
		{2, []float64{1, 2, 4}, -1, []uint64{1, 2}, -1},
		{2, []float64{1, 4, 2}, -1, []uint64{1, 2}, -1},
		{2, []float64{2, 4, 1}, -1, []uint64{1, 2}, -1},
		{2, []float64{2, 1, 4}, -1, []uint64{1, 2}, -1},
		{2, []float64{4, 1, 2}, -1, []uint64{1, 2}, -1},
		{2, []float64{4, 2, 1}, -1, []uint64{1, 2}, -1},
		{4, []float64{2, 2, 2, 1, 8, 0.5}, -1, []uint64{2, 3, 1}, -1},
		{2, []float64{1, 0.5, 2}, -1, []uint64{2, 1}, -1},
		{2, []float64{1, 2, 0.5}, -1, []uint64{2, 1}, -1},
		{2, []float64{2, 0.5, 1}, -1, []uint64{2, 1}, -1},
		{2, []float64{2, 1, 0.5}, -1, []uint64{2, 1}, -1},
		{2, []float64{0.5, 1, 2}, -1, []uint64{2, 1}, -1},
		{2, []float64{0.5, 2, 1}, -1, []uint64{2, 1}, -1},
		{4, []float64{math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64}, -1126170625, []uint64{3}, 20},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.maxSize, tt.values), func(t *testing.T) {
			h := newExpHistogram(tt.maxSize, 20)
			for _, v := range tt.values {
				recordAll(h, v, -v)
			}
			b := ExpBuckets{Offset: tt.wantOffset, Counts: tt.wantCounts}
			checkState(t, h, expState{Scale: tt.wantScale, Pos: b, Neg: b})
		})
	}
}

// TestExpBucketsDownscale ports the SDK's TestExpoBucketDownscale.
func TestExpBucketsDownscale(t *testing.T) {
	tests := []struct {
		name  string
		in    ExpBuckets
		delta int32
		want  ExpBuckets
	}{
		{"empty", ExpBuckets{}, 3, ExpBuckets{}},
		{"one bucket", ExpBuckets{50, []uint64{7}}, 4, ExpBuckets{3, []uint64{7}}},
		{"aligned 1", ExpBuckets{0, []uint64{1, 2, 3, 4, 5, 6}}, 1, ExpBuckets{0, []uint64{3, 7, 11}}},
		{"aligned 2", ExpBuckets{0, []uint64{1, 2, 3, 4, 5, 6}}, 2, ExpBuckets{0, []uint64{10, 11}}},
		{"aligned 3", ExpBuckets{0, []uint64{1, 2, 3, 4, 5, 6}}, 3, ExpBuckets{0, []uint64{21}}},
		{"unaligned 1", ExpBuckets{5, []uint64{1, 2, 3, 4, 5, 6}}, 1, ExpBuckets{2, []uint64{1, 5, 9, 6}}},
		{"unaligned 2", ExpBuckets{7, []uint64{1, 2, 3, 4, 5, 6}}, 2, ExpBuckets{1, []uint64{1, 14, 6}}},
		{"unaligned 3", ExpBuckets{3, []uint64{1, 2, 3, 4, 5, 6}}, 3, ExpBuckets{0, []uint64{15, 6}}},
		{"unaligned with gap", ExpBuckets{1, []uint64{1, 0, 1}}, 1, ExpBuckets{0, []uint64{1, 1}}},
		{"negative offset", ExpBuckets{-1, []uint64{1, 0, 3}}, 1, ExpBuckets{-1, []uint64{1, 3}}},
		{"negative offset 2", ExpBuckets{-4, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, 1, ExpBuckets{-2, []uint64{3, 7, 11, 15, 19}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.in
			b.downscale(tt.delta)
			if !reflect.DeepEqual(b, tt.want) {
				t.Errorf("downscale(%d) = %+v, want %+v", tt.delta, b, tt.want)
			}
		})
	}
}

// TestExpBucketsAdd ports the SDK's TestExpoBucketRecord.
func TestExpBucketsAdd(t *testing.T) {
	tests := []struct {
		name string
		in   ExpBuckets
		bin  int32
		want ExpBuckets
	}{
		{"empty", ExpBuckets{}, -5, ExpBuckets{-5, []uint64{1}}},
		{"inside", ExpBuckets{3, []uint64{1, 2, 3, 4, 5, 6}}, 5, ExpBuckets{3, []uint64{1, 2, 4, 4, 5, 6}}},
		{"before", ExpBuckets{1, []uint64{1, 2, 3, 4, 5, 6}}, -2, ExpBuckets{-2, []uint64{1, 0, 0, 1, 2, 3, 4, 5, 6}}},
		{"after", ExpBuckets{-2, []uint64{1, 2, 3, 4, 5, 6}}, 4, ExpBuckets{-2, []uint64{1, 2, 3, 4, 5, 6, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.in
			b.add(tt.bin)
			if !reflect.DeepEqual(b, tt.want) {
				t.Errorf("add(%d) = %+v, want %+v", tt.bin, b, tt.want)
			}
		})
	}
}
