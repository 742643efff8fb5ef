package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"runtime"
	"sync"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/cache"
	"sutura.dev/exec-arrow/internal/check"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/footer"
)

// DefaultWorkingSetMaxBytes is the working-set ceiling when Config leaves
// it zero: 1 GiB (docs/contract.md §7, runtime.working_set_max_bytes).
const DefaultWorkingSetMaxBytes int64 = 1 << 30

// ProcessCeiling is the documented ceiling of a process's peak resident
// memory when its engines share the working set ws (zero or less:
// DefaultWorkingSetMaxBytes): ws plus 320 MiB (the process itself, its
// connections, the buffers of the files questions stream) plus a quarter
// of ws (the collector's headroom over the columns it holds);
// docs/operations.md, "Memory under load".
func ProcessCeiling(ws int64) int64 {
	if ws <= 0 {
		ws = DefaultWorkingSetMaxBytes
	}
	return ws + 320<<20 + ws/4
}

// SoftMemoryLimit is the Go soft memory limit (debug.SetMemoryLimit) such
// a process sets: an eighth of the working set under ProcessCeiling. The
// runtime's limit counts only the memory Go maps; the resident set also
// holds the binary's pages, what C libraries allocate, and the heap the
// scavenger has not yet returned to the system, and the eighth is their
// room.
func SoftMemoryLimit(ws int64) int64 {
	if ws <= 0 {
		ws = DefaultWorkingSetMaxBytes
	}
	return ProcessCeiling(ws) - ws/8
}

// Config configures a files source.
type Config struct {
	// Source is the alias of the configured source; plans whose leg names
	// another source are not executed.
	Source string
	// Files is the source's data directory (os.DirFS of data_dir, or the
	// embedded demo data).
	Files fs.FS
	// Models are the models of this source. The last segment of a model's
	// table path names its file; its declared columns and types are what
	// Validate checks.
	Models []domain.Model
	// WorkingSetMaxBytes bounds the bytes the engine holds: cached columns
	// and the working memory of running queries. Zero means
	// DefaultWorkingSetMaxBytes.
	WorkingSetMaxBytes int64
	// Parallelism is the number of goroutines one query scans with. Zero
	// means GOMAXPROCS.
	Parallelism int
	// NoCacheFill keeps the cache from reading a streamed table's columns
	// in the background after a question streamed them: every question
	// over columns not cached then streams the files. By default they are
	// read into the cache when they fit in the working set.
	NoCacheFill bool
	// HoldFills keeps the background fills that questions queue from
	// starting until StartFills is called. A serving process sets it: the
	// anchors it runs at start would otherwise start filling the cache
	// while it has not opened its listener yet, and that read competes
	// with the rest of its start for the cores and the collector.
	HoldFills bool
	// Logger receives what has no caller to be told: a background cache
	// fill that failed by a defect. Nil discards.
	Logger *slog.Logger
}

// Engine executes plans over the files of one source. It is safe for
// concurrent use.
type Engine struct {
	cfg    Config
	models map[string]*domain.Model
	cache  *cache.Cache
	// footers are the Parquet footers read: start-up checks, spans,
	// estimates and scans all read through them, so a file's footer is
	// decoded once while its bytes stay the same.
	footers *footer.Cache
	// deferred are the text parts Validate sampled (CheckDeferred).
	deferred check.Deferred
	// scanned are the days complete scans found in text tables' time
	// columns (DataSpan).
	scanned check.Scanned
	// refused are the fills refused while the whole read of text files
	// was still to run (scheduleFill), asked for again when it ends.
	refused refusedFills
	// prepared are the answers Prepare found and Execute has not taken.
	preparedMu sync.Mutex
	prepared   []*prepared
}

// log is the configured logger, or one that discards.
func (e *Engine) log() *slog.Logger {
	if e.cfg.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.cfg.Logger
}

// New returns the engine of the files source cfg describes. It checks the
// configuration only; Validate reads the files.
func New(ctx context.Context, cfg Config) (*Engine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.Files == nil {
		return nil, fmt.Errorf("files source %s: no data directory", cfg.Source)
	}
	if cfg.WorkingSetMaxBytes < 0 || cfg.Parallelism < 0 {
		return nil, fmt.Errorf("files source %s: working set and parallelism may not be negative", cfg.Source)
	}
	if cfg.WorkingSetMaxBytes == 0 {
		cfg.WorkingSetMaxBytes = DefaultWorkingSetMaxBytes
	}
	if cfg.Parallelism == 0 {
		cfg.Parallelism = runtime.GOMAXPROCS(0)
	}
	e := &Engine{cfg: cfg, models: map[string]*domain.Model{}, footers: &footer.Cache{}}
	e.cache = cache.New(cache.Config{Limit: cfg.WorkingSetMaxBytes, Files: cfg.Files, HoldFills: cfg.HoldFills,
		Logger: e.log().With("source", cfg.Source)})
	for i := range cfg.Models {
		m := &cfg.Models[i]
		if m.Source != "" && m.Source != cfg.Source {
			return nil, fmt.Errorf("files source %s: model %s belongs to source %s", cfg.Source, m.Name, m.Source)
		}
		if len(m.TableParts()) == 0 || m.BareTable() == "" {
			return nil, fmt.Errorf("files source %s: model %s has no table", cfg.Source, m.Name)
		}
		e.models[m.Name] = m
	}
	return e, nil
}

// Source returns the alias of the engine's source.
func (e *Engine) Source() string { return e.cfg.Source }

// ctxErr turns the context's end into Execute's error: a passed deadline
// is the refusal deadline_exceeded, a cancellation is ctx.Err().
func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		return &domain.RefusalError{Reason: domain.Refuse(domain.DeadlineExceeded,
			"the question ran out of its execution time and was stopped")}
	}
	return err
}

// WorkingSet reports the bytes held against runtime.working_set_max_bytes
// (cached columns, their derived structures and running queries' working
// memory) and that ceiling, for monitoring.
func (e *Engine) WorkingSet() (used, limit int64) {
	s := e.cache.Stats()
	return s.Used, s.Limit
}

// ErrOutsideDataDir is the error of a table file, a table directory or a
// part of one that leaves the source's data directory: a symbolic link
// whose target is absolute or climbs out of it. Such a file is never
// read.
var ErrOutsideDataDir = files.ErrOutsideDataDir
