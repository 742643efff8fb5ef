package chdbtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// System executes plans on the engine with the statements semantic writes
// for the clickhouse dialect, exactly as a current ClickHouse server gets
// them from the adapter: typed query parameters bound by the engine, and
// the session settings the adapter sends with every statement (readonly =
// 1, join_use_nulls = 1, session_timezone UTC). It is app's data-system
// port and its cost ability, for the suites; it cannot stop a running
// statement (chDB's call blocks), so a cancelled context is honoured only
// between statements.
type System struct {
	engine *Engine
	source string
	db     string
}

// formatOut is the engine's output format the cells are read from: the
// names, the types, then one JSON array per row, 64-bit integers quoted so
// that they keep every digit.
const formatOut = "JSONCompactEachRowWithNamesAndTypes"

// NewSystem loads the tables of models from files into a database of the
// engine named db (created; it must not exist), then makes the session
// read-only and returns the data system of source alias source over it.
// A model's table is the file named after the last segment of its table
// path (<table>.csv with a header row, as the files source finds it), its
// columns created with the declared types (Nullable, so that an empty
// field is null).
func NewSystem(e *Engine, source, db string, files fs.FS, models []domain.Model) (*System, error) {
	dir, err := os.MkdirTemp("", "sutura-chdb-load")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := e.Query("CREATE DATABASE "+quote(db), formatOut, nil); err != nil {
		return nil, err
	}
	for _, m := range models {
		if err := load(e, dir, db, files, m); err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Name, err)
		}
	}
	for _, set := range []string{
		"SET join_use_nulls = 1", "SET session_timezone = 'UTC'", "SET max_execution_time = 300",
		"SET output_format_json_quote_64bit_integers = 1", "SET output_format_json_quote_denormals = 1",
		"USE " + quote(db), "SET readonly = 1",
	} {
		if _, err := e.Query(set, formatOut, nil); err != nil {
			return nil, fmt.Errorf("%s: %w", set, err)
		}
	}
	return &System{engine: e, source: source, db: db}, nil
}

func quote(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// types are the engine types declared column types are created as (every
// column Nullable: an empty CSV field is null).
var types = sqltest.Types{Integer: "Nullable(Int64)", Float: "Nullable(Float64)", Decimal: "Nullable(Decimal(38, 9))",
	Boolean: "Nullable(Bool)", Date: "Nullable(Date)", Timestamp: "Nullable(DateTime64(6, 'UTC'))", Text: "Nullable(String)"}

func load(e *Engine, dir, db string, files fs.FS, m domain.Model) error {
	name := m.BareTable() + ".csv"
	raw, err := fs.ReadFile(files, name)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		return err
	}
	cols, err := sqltest.Header(bytes.NewReader(raw), &m)
	if err != nil {
		return err
	}
	var defs []string
	for _, c := range cols {
		defs = append(defs, quote(c.Name)+" "+types.Of(c.Type))
	}
	structure := strings.Join(defs, ", ")
	table := quote(db) + "." + quote(m.BareTable())
	if _, err := e.Query("CREATE TABLE "+table+" ("+structure+") ENGINE = MergeTree ORDER BY tuple()", formatOut, nil); err != nil {
		return err
	}
	// The path and structure are the test's own fixture, bound as
	// parameters all the same.
	_, err = e.Query("INSERT INTO "+table+" SELECT * FROM file({path:String}, 'CSVWithNames', {structure:String})", formatOut,
		map[string]string{"path": escape(path), "structure": escape(structure)})
	return err
}

// escape writes a parameter value in the engine's escaped text form.
func escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
}

// Execute runs plan on the engine (app.DataSystem).
func (s *System) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	rs, _, err := s.ExecuteWithCost(ctx, plan)
	return rs, err
}

var errorCode = regexp.MustCompile(`Code: (\d+)`)

// ExecuteWithCost runs plan and reports the rows and bytes the engine read
// (app.CostReporter).
func (s *System) ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error) {
	if err := ctx.Err(); err != nil {
		return nil, domain.Cost{}, err
	}
	if plan == nil || len(plan.Legs) == 0 || plan.Legs[0].Source != s.source {
		return nil, domain.Cost{}, errors.New("chdbtest: the plan reads another source")
	}
	st, err := semantic.Render(plan, semantic.ClickHouse)
	if err != nil {
		return nil, domain.Cost{}, err
	}
	params := map[string]string{}
	for _, p := range st.Params {
		params[p.BindName()] = escape(p.Value)
	}
	res, err := s.engine.Query(st.SQL, formatOut, params)
	if err != nil {
		if m := errorCode.FindStringSubmatch(err.Error()); m != nil && m[1] == "395" {
			return nil, domain.Cost{}, fmt.Errorf("%w (throwIf)", domain.ErrZeroDenominator)
		}
		return nil, domain.Cost{}, fmt.Errorf("chdbtest: the engine failed the statement: %w: %w", domain.ErrRejected, err)
	}
	cost := domain.Cost{RowsScanned: int64(res.RowsRead), BytesRead: int64(res.BytesRead)}
	rs, err := readRows(res.Output, plan)
	return rs, cost, err
}

// readRows reads the engine's output as canonical cells, refusing more
// rows than the plan's row cap as the adapter does.
func readRows(out []byte, plan *domain.Plan) (*domain.RowSet, error) {
	dec := json.NewDecoder(bufio.NewReader(bytes.NewReader(out)))
	dec.UseNumber()
	var names, types []string
	if err := dec.Decode(&names); err != nil {
		return nil, fmt.Errorf("chdbtest: the names line: %w", err)
	}
	if err := dec.Decode(&types); err != nil {
		return nil, fmt.Errorf("chdbtest: the types line: %w", err)
	}
	if len(names) != len(plan.Columns) {
		return nil, fmt.Errorf("chdbtest: the statement returns %d columns (%v), the plan has %d", len(names), names, len(plan.Columns))
	}
	rowCap, _ := plan.Bounds()
	rs := &domain.RowSet{Columns: plan.Columns, Rows: [][]domain.Cell{}}
	for {
		var raw []any
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return rs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("chdbtest: a row: %w", err)
		}
		if len(rs.Rows) == rowCap {
			return nil, &domain.RefusalError{Reason: domain.Refuse(domain.ResultTooLarge, "the answer has more than %d rows", rowCap)}
		}
		row := make([]domain.Cell, len(raw))
		for i, v := range raw {
			c, err := cell(baseType(types[i]), v)
			if err != nil {
				return nil, fmt.Errorf("chdbtest: column %s (%s): %w", names[i], types[i], err)
			}
			row[i] = c
		}
		rs.Rows = append(rs.Rows, row)
	}
}

func baseType(t string) string {
	for _, w := range []string{"Nullable(", "LowCardinality("} {
		for strings.HasPrefix(t, w) && strings.HasSuffix(t, ")") {
			t = t[len(w) : len(t)-1]
		}
	}
	return t
}

// cell is the canonical cell of one JSON value of a column of type typ.
func cell(typ string, v any) (domain.Cell, error) {
	if v == nil {
		return domain.Null(), nil
	}
	text := fmt.Sprint(v)
	switch {
	case strings.HasPrefix(typ, "Int") || strings.HasPrefix(typ, "UInt"):
		n, ok := new(big.Int).SetString(text, 10)
		if !ok {
			return domain.Null(), fmt.Errorf("not an integer")
		}
		// Past 64 bits, the exact value, as the adapter renders it.
		return sqlsource.BigIntCell(n), nil
	case strings.HasPrefix(typ, "Float"):
		switch text {
		case "nan", "-nan", "inf", "+inf", "-inf":
			return domain.Float(math.NaN()), nil
		}
		f, err := strconv.ParseFloat(text, 64)
		return domain.Float(f), err
	case strings.HasPrefix(typ, "Decimal"):
		// The JSON number holds every digit (read with UseNumber): the
		// exact value, as the adapter renders a Decimal.
		coef, scale, ok := domain.ParseDecimal(text)
		if !ok {
			return domain.Null(), fmt.Errorf("not a decimal")
		}
		return sqlsource.DecimalCell(coef, -scale), nil
	case typ == "Bool":
		b, ok := v.(bool)
		if !ok {
			return domain.Null(), fmt.Errorf("not a boolean")
		}
		return domain.Bool(b), nil
	case strings.HasPrefix(typ, "DateTime"):
		t, err := time.ParseInLocation("2006-01-02 15:04:05.999999999", text, time.UTC)
		return domain.Text(t.UTC().Format(time.RFC3339Nano)), err
	case strings.HasPrefix(typ, "Date"):
		d, err := domain.ParseDate(text)
		return domain.DateCell(d), err
	}
	return domain.Text(text), nil
}
