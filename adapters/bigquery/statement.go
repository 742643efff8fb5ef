package bigquery

import (
	"context"
	"fmt"
	"strings"

	bq "cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// render checks plan (sqlsource.Leg) and renders it in the bigquery
// dialect, with its values as typed named parameters.
func render(ctx context.Context, source string, plan *domain.Plan) (job, error) {
	if err := sqlsource.Leg("bigquery", source, plan); err != nil {
		return job{}, err
	}
	st, err := semantic.Render(plan, semantic.BigQuery)
	if err != nil {
		return job{}, fmt.Errorf("bigquery source %s: %w", source, err)
	}
	params, err := parameters(st)
	if err != nil {
		return job{}, fmt.Errorf("bigquery source %s: %w", source, err)
	}
	return job{sql: st.SQL + sqlsource.TraceComment(ctx), params: params}, nil
}

// parameters are st's values as BigQuery's named query parameters: @p1
// is the parameter named p1, a date a DATE (civil.Date), text a STRING.
// They travel beside the statement and BigQuery binds them by name and
// type, so no value is ever part of the SQL.
func parameters(st semantic.Statement) ([]bq.QueryParameter, error) {
	out := make([]bq.QueryParameter, len(st.Params))
	for i, p := range st.Params {
		name, ok := strings.CutPrefix(p.Name, "@")
		if !ok || name == "" {
			return nil, fmt.Errorf("parameter %d is written %s, not as a named parameter", i+1, p.Name)
		}
		switch p.Kind {
		case semantic.ParamDate:
			d, err := civil.ParseDate(p.Value)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: %s is not a date", p.Name, p.Value)
			}
			out[i] = bq.QueryParameter{Name: name, Value: d}
		case semantic.ParamText:
			out[i] = bq.QueryParameter{Name: name, Value: p.Value}
		default:
			return nil, fmt.Errorf("parameter %s has an unknown kind", p.Name)
		}
	}
	return out, nil
}
