package sqlsource

import (
	"errors"
	"fmt"
	"strings"

	"sutura.dev/domain"
)

// ErrEmptyStatement is the error of a run_sql statement with no text.
var ErrEmptyStatement = errors.New("the statement is empty")

// Statement is the guard every run_sql statement passes before it is
// sent: a statement with no text is ErrEmptyStatement, and the row cap
// becomes domain.MaxRowCap when it is not positive or larger.
func Statement(statement string, rowCap int) (int, error) {
	if strings.TrimSpace(statement) == "" {
		return 0, ErrEmptyStatement
	}
	if rowCap <= 0 || rowCap > domain.MaxRowCap {
		rowCap = domain.MaxRowCap
	}
	return rowCap, nil
}

// Rows is a driver's result as Read reads it.
type Rows interface {
	// Next advances to the next row; false at the end or on an error.
	Next() bool
	// Scan decodes the current row into row, one canonical cell per
	// column.
	Scan(row []domain.Cell) error
	// Err is the error that ended Next, if any.
	Err() error
}

// Columns are the columns of a result whose fields are named names:
// plan's when it is not nil, which must then match in number, and
// otherwise columns named after the fields with no role (run_sql).
func Columns(plan []domain.Column, names []string) ([]domain.Column, error) {
	if plan != nil {
		if len(plan) != len(names) {
			return nil, fmt.Errorf("the statement returns %d columns, the plan has %d", len(names), len(plan))
		}
		return plan, nil
	}
	columns := make([]domain.Column, len(names))
	for i, n := range names {
		columns[i] = domain.Column{Name: n}
	}
	return columns, nil
}

// Read reads rows as canonical cells into a row set with columns. It
// reads at most rowCap rows and refuses result_too_large at the first row
// past rowCap (tooMany takes rowCap: the statement asks for rowCap+1 rows,
// so one row more says the answer is larger) or past byteCap bytes of
// rendered cells (domain.MaxResultBytes when byteCap is not positive). It
// never truncates. The caller closes rows.
func Read(rows Rows, columns []domain.Column, rowCap, byteCap int, tooMany string) (*domain.RowSet, error) {
	if byteCap <= 0 {
		byteCap = domain.MaxResultBytes
	}
	rs := &domain.RowSet{Columns: columns, Rows: [][]domain.Cell{}}
	size := 0
	for rows.Next() {
		if len(rs.Rows) == rowCap {
			return nil, Refusal(domain.ResultTooLarge, tooMany, rowCap)
		}
		row := make([]domain.Cell, len(columns))
		if err := rows.Scan(row); err != nil {
			return nil, err
		}
		for _, c := range row {
			size += len(c.Render())
		}
		if size > byteCap {
			return nil, Refusal(domain.ResultTooLarge, DetailTooManyBytes, byteCap)
		}
		rs.Rows = append(rs.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return rs, nil
}
