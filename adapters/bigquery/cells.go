package bigquery

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"time"

	"cloud.google.com/go/civil"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// cell is the canonical cell of a value the client library decoded (see
// the package documentation, Cells).
func cell(v any) (domain.Cell, error) {
	if c, ok := sqlsource.Scalar(v); ok {
		return c, nil
	}
	switch x := v.(type) {
	case *big.Rat:
		// NUMERIC and BIGNUMERIC arrive exact, as their decimal text parsed.
		return ratCell(x), nil
	case civil.Date:
		d, err := domain.ParseDate(x.String())
		if err != nil {
			return domain.Null(), fmt.Errorf("the date %s is outside the range sutura reads", x)
		}
		return domain.DateCell(d), nil
	case time.Time:
		return domain.Text(sqlsource.TimestampText(x)), nil
	case civil.DateTime:
		// A DATETIME has no time zone: its wall-clock time, read as UTC.
		return domain.Text(sqlsource.TimestampText(x.In(time.UTC))), nil
	case civil.Time:
		return domain.Text(x.String()), nil
	case []byte:
		return domain.Text(base64.StdEncoding.EncodeToString(x)), nil
	}
	return domain.Null(), fmt.Errorf("a value of type %T is not one sutura reads (arrays, structs, ranges, intervals)", v)
}

var ten = big.NewInt(10)

// maxScale is BIGNUMERIC's scale, the largest of BigQuery's decimals.
const maxScale = 38

// ratCell is the cell of the decimal r: r's denominator divides 10^38 for
// every NUMERIC and BIGNUMERIC, so r is coef × 10^-k exactly for the
// smallest such k, which sqlsource.DecimalCell renders.
func ratCell(r *big.Rat) domain.Cell {
	if r.IsInt() {
		return sqlsource.BigIntCell(r.Num())
	}
	scale := big.NewInt(1)
	mod := new(big.Int)
	for k := int32(1); k <= maxScale; k++ {
		scale.Mul(scale, ten)
		if mod.Mod(scale, r.Denom()).Sign() == 0 {
			coef := new(big.Int).Mul(r.Num(), new(big.Int).Quo(scale, r.Denom()))
			return sqlsource.DecimalCell(coef, -k)
		}
	}
	f, _ := r.Float64()
	return domain.Float(f)
}
