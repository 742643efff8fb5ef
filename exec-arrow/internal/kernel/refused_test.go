package kernel

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/exec-arrow/internal/gate"
)

// noRoom is a working set with no room at all.
type noRoom struct{}

var errNoRoom = errors.New("no room")

func (noRoom) Reserve(int64) error { return errNoRoom }
func (noRoom) Release(int64)       {}

// closing is a producer that counts its runs and closes.
type closing struct{ runs, closes int }

func (p *closing) Run(context.Context) error                           { p.runs++; return nil }
func (p *closing) Scan(context.Context, int, func(*Batch) error) error { return nil }
func (p *closing) Close() error                                        { p.closes++; return nil }

// TestScanRefusedClosesItsProducer: a scan whose working memory the
// budget refuses returns the refusal without running its producer, and
// closes it: a Parquet producer holds its files open from the moment it
// is made.
func TestScanRefusedClosesItsProducer(t *testing.T) {
	src := &closing{}
	_, err := Scan(context.Background(), &Query{Parallel: 2}, src, &gate.Reservation{Budget: noRoom{}}, nil)
	require.ErrorIs(t, err, errNoRoom)
	require.Equal(t, 0, src.runs, "never run")
	require.Equal(t, 1, src.closes, "closed once")
}
