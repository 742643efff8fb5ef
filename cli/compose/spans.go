package compose

import (
	"context"

	"sutura.dev/app"
)

// ReadSpans opens the sources of s without validating them, asks each
// that can tell it cheaply for the data span of every metric
// (app.ReadSpans), and closes them again: for the commands that describe
// the catalogue without serving it. A source that does not open gives no
// span; only the end of ctx is an error.
func ReadSpans(ctx context.Context, s *Setup) (app.Spans, error) {
	opened, err := openSources(ctx, s.Config, s.Bundle, nil, true)
	if err != nil {
		return app.Spans{}, ctx.Err()
	}
	defer opened.close()
	return app.ReadSpans(ctx, s.Bundle, opened.sources)
}
