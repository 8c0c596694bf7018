package cliflag

import (
	"errors"
	"flag"
	"strconv"
	"time"
)

// errDuration and errCount are what the flag package prints after
// `invalid value "x" for flag -name:`; its own say only "parse error".
var (
	errDuration = errors.New("want a duration such as 500ms, 10s or 1m30s, 0 or more")
	errCount    = errors.New("want a whole number, 0 or more")
)

type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return errDuration
	}
	*d = durationValue(v)
	return nil
}

// DurationVar defines a duration flag that refuses a negative value and
// says what a good one looks like.
func DurationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}

type countValue int

func (c *countValue) String() string { return strconv.Itoa(int(*c)) }

func (c *countValue) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return errCount
	}
	*c = countValue(v)
	return nil
}

// CountVar defines an integer flag that refuses a negative value.
func CountVar(fs *flag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	fs.Var((*countValue)(p), name, usage)
}
