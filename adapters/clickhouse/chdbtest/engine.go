package chdbtest

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

// The few entry points of libchdb (chdb.h) this package calls, looked up
// at run time so that the module builds and its tests say NOT RUN where
// the library is not installed. Connections and results are opaque.
typedef void *chdb_conn;
typedef void *chdb_res;

static void *lib;
static chdb_conn *(*fn_connect)(int, char **);
static void (*fn_close)(chdb_conn *);
static chdb_res (*fn_query_params)(chdb_conn, const char *, const char *, const char *const *, const char *const *, size_t);
static char *(*fn_buffer)(chdb_res);
static size_t (*fn_length)(chdb_res);
static const char *(*fn_error)(chdb_res);
static uint64_t (*fn_rows_read)(chdb_res);
static uint64_t (*fn_bytes_read)(chdb_res);
static void (*fn_destroy)(chdb_res);

static const char *chdb_load(const char *path) {
	lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!lib) return dlerror();
	fn_connect = dlsym(lib, "chdb_connect");
	fn_close = dlsym(lib, "chdb_close_conn");
	fn_query_params = dlsym(lib, "chdb_query_with_params");
	fn_buffer = dlsym(lib, "chdb_result_buffer");
	fn_length = dlsym(lib, "chdb_result_length");
	fn_error = dlsym(lib, "chdb_result_error");
	fn_rows_read = dlsym(lib, "chdb_result_rows_read");
	fn_bytes_read = dlsym(lib, "chdb_result_bytes_read");
	fn_destroy = dlsym(lib, "chdb_destroy_query_result");
	if (!fn_connect || !fn_close || !fn_query_params || !fn_buffer || !fn_length || !fn_error ||
	    !fn_rows_read || !fn_bytes_read || !fn_destroy)
		return "the library lacks an entry point of chdb.h (chdb_connect, chdb_query_with_params, chdb_result_*)";
	return 0;
}

static chdb_conn *chdb_open(int argc, char **argv) { return fn_connect(argc, argv); }
static void chdb_close(chdb_conn *c) { fn_close(c); }
static chdb_res chdb_run(chdb_conn *c, const char *q, const char *f, const char *const *n, const char *const *v, size_t k) {
	return fn_query_params(*c, q, f, n, v, k);
}
static char *res_buffer(chdb_res r) { return fn_buffer(r); }
static size_t res_length(chdb_res r) { return fn_length(r); }
static const char *res_error(chdb_res r) { return fn_error(r); }
static uint64_t res_rows(chdb_res r) { return fn_rows_read(r); }
static uint64_t res_bytes(chdb_res r) { return fn_bytes_read(r); }
static void res_destroy(chdb_res r) { fn_destroy(r); }
*/
import "C"

import (
	"errors"
	"sync"
	"unsafe"
)

// Engine is chDB's ClickHouse engine, loaded from libchdb.so into this
// process: one connection, used by one statement at a time.
type Engine struct {
	mu   sync.Mutex
	conn *C.chdb_conn
}

// Result is what one statement returned: its output in the format asked
// for, and the rows and bytes the engine read.
type Result struct {
	Output    []byte
	RowsRead  uint64
	BytesRead uint64
}

var (
	loadOnce sync.Once
	loadErr  error
)

// Open loads the library at libPath (once per process: the engine is
// process-wide) and connects to an engine whose data lives in dir.
func Open(libPath, dir string) (*Engine, error) {
	loadOnce.Do(func() {
		p := C.CString(libPath)
		defer C.free(unsafe.Pointer(p))
		if e := C.chdb_load(p); e != nil {
			loadErr = errors.New("chdbtest: loading libchdb: " + C.GoString(e))
		}
	})
	if loadErr != nil {
		return nil, loadErr
	}
	args := []string{"clickhouse", "--path=" + dir}
	argv := make([]*C.char, len(args))
	for i, a := range args {
		argv[i] = C.CString(a)
		defer C.free(unsafe.Pointer(argv[i]))
	}
	conn := C.chdb_open(C.int(len(argv)), &argv[0])
	if conn == nil {
		return nil, errors.New("chdbtest: chdb_connect failed")
	}
	return &Engine{conn: conn}, nil
}

// Close closes the connection.
func (e *Engine) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conn != nil {
		C.chdb_close(e.conn)
		e.conn = nil
	}
}

// Query runs one statement with its parameters bound by the engine
// ({name:Type} placeholders; values in the engine's escaped text form),
// returning its output in format. The engine's error text comes back as
// the error.
func (e *Engine) Query(sql, format string, params map[string]string) (Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conn == nil {
		return Result{}, errors.New("chdbtest: the engine is closed")
	}
	q := C.CString(sql)
	defer C.free(unsafe.Pointer(q))
	f := C.CString(format)
	defer C.free(unsafe.Pointer(f))
	n := len(params)
	names := make([]*C.char, n+1)
	values := make([]*C.char, n+1)
	i := 0
	for k, v := range params {
		names[i], values[i] = C.CString(k), C.CString(v)
		i++
	}
	defer func() {
		for j := 0; j < n; j++ {
			C.free(unsafe.Pointer(names[j]))
			C.free(unsafe.Pointer(values[j]))
		}
	}()
	// Go memory holding C pointers may be passed to C (cgo's rules forbid
	// only Go pointers inside it).
	r := C.chdb_run(e.conn, q, f, &names[0], &values[0], C.size_t(n))
	if r == nil {
		return Result{}, errors.New("chdbtest: the engine returned no result")
	}
	defer C.res_destroy(r)
	if msg := C.res_error(r); msg != nil {
		err := errors.New(C.GoString(msg))
		// chDB 26.5 hands what a failed statement had already written (its
		// header) to the next statement's result: run one statement to
		// take it, and drop its result.
		e.flush()
		return Result{}, err
	}
	out := Result{RowsRead: uint64(C.res_rows(r)), BytesRead: uint64(C.res_bytes(r))}
	if l := C.res_length(r); l > 0 {
		out.Output = C.GoBytes(unsafe.Pointer(C.res_buffer(r)), C.int(l))
	}
	return out, nil
}

// flush runs SELECT 1 and drops its result.
func (e *Engine) flush() {
	q := C.CString("SELECT 1")
	defer C.free(unsafe.Pointer(q))
	f := C.CString("Null")
	defer C.free(unsafe.Pointer(f))
	var none *C.char
	if r := C.chdb_run(e.conn, q, f, &none, &none, 0); r != nil {
		C.res_destroy(r)
	}
}
