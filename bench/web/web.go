// Package web is the benchmark's second data set, of a shape nobody tuned
// the engine for: web analytics events with timestamps in no order, a
// high-cardinality text key (session ids, about 0.37 per row distinct),
// a mid-cardinality user id (one per ten rows), and a 50 000-row pages
// table joined by page id to a sections table. Generate writes it with
// DuckDB (so the Parquet files have the OPTIONAL columns and the
// encodings of a common writer) as Parquet or CSV; WriteCatalog writes
// its catalogue, with an anchor computed from the data; Cases are the
// questions asked of it.
package web

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sutura.dev/bench/duck"
)

// SourceAlias is the source alias every model of the catalogue names.
const SourceAlias = "web"

// Version is the catalogue's version label.
const Version = "web-1"

// Pages is the row count of the pages table; sections are fixed.
const Pages = 50_000

// Tables are the data set's tables as DuckDB reads the CSV and NDJSON
// files.
var Tables = []duck.Table{
	{Name: "events", Cols: `event_id: 'BIGINT', event_time: 'TIMESTAMP', session_id: 'VARCHAR', user_id: 'BIGINT',
		page_id: 'BIGINT', country: 'VARCHAR', device: 'VARCHAR', event_type: 'VARCHAR', is_view: 'BOOLEAN',
		is_purchase: 'BOOLEAN', revenue_cents: 'BIGINT'`, TextOptions: `, timestampformat = '%Y-%m-%dT%H:%M:%SZ'`},
	{Name: "pages", Cols: `page_id: 'BIGINT', section_id: 'BIGINT', path: 'VARCHAR'`},
	{Name: "sections", Cols: `section_id: 'BIGINT', section_name: 'VARCHAR'`},
}

// Countries are the country codes events carry (a skewed distribution:
// the first are the most frequent).
var Countries = []string{"US", "DE", "GB", "FR", "IN", "BR", "JP", "CA", "ES", "IT",
	"NL", "PL", "SE", "MX", "AU", "TR", "KR", "ID", "AR", "BE", "CH", "AT", "NO", "DK", "FI",
	"IE", "PT", "CZ", "RO", "HU", "GR", "IL", "ZA", "NG", "EG", "KE", "MA", "SA", "AE", "PK",
	"BD", "VN", "TH", "MY", "PH", "SG", "NZ", "CL", "CO", "PE", "UA", "BG", "HR", "SK", "SI",
	"LT", "LV", "EE", "IS", "LU"}

// Sections are the section names; pages are spread over them evenly.
var Sections = []string{"home", "news", "sport", "business", "tech", "science", "health",
	"travel", "food", "style", "culture", "music", "film", "books", "games", "cars", "money",
	"jobs", "property", "weather", "education", "family", "pets", "garden", "diy", "fashion",
	"beauty", "fitness", "outdoors", "history", "politics", "world", "local", "opinion",
	"video", "podcasts", "shop", "deals", "help", "about"}

func sqlList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "'" + v + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// eventsSQL selects rows events: event_time is uniform over 2024 and
// 2025 (whole seconds) in row order of a hash, so no range of rows holds a
// range of time; a session (about rows×0.4 drawn, ~0.37×rows distinct)
// belongs to one user (rows/10) and one device.
func eventsSQL(rows int64) string {
	sessions := max(rows*2/5, 1)
	users := max(rows/10, 1)
	return fmt.Sprintf(`WITH r AS (
  SELECT i, hash(i, 2) %% %[2]d AS k, (hash(i, 8) %% 1000) AS et
  FROM range(%[1]d) t(i)
)
SELECT i + 1 AS event_id,
  TIMESTAMP '2024-01-01' + to_seconds(CAST(hash(i, 1) %% (731 * 86400) AS BIGINT)) AS event_time,
  printf('%%016x', hash(k, 3)) AS session_id,
  CAST(hash(k, 4) %% %[3]d + 1 AS BIGINT) AS user_id,
  CAST(hash(i, 5) %% %[4]d + 1 AS BIGINT) AS page_id,
  %[5]s[CAST(floor(60 * pow((hash(i, 6) %% 1000000) / 1e6, 2)) AS BIGINT) + 1] AS country,
  CASE WHEN hash(k, 7) %% 10 < 5 THEN 'desktop' WHEN hash(k, 7) %% 10 < 9 THEN 'mobile' ELSE 'tablet' END AS device,
  CASE WHEN et < 30 THEN 'purchase' WHEN et < 150 THEN 'add_to_cart' WHEN et < 450 THEN 'click' ELSE 'view' END AS event_type,
  et >= 450 AS is_view,
  et < 30 AS is_purchase,
  CASE WHEN et < 30 THEN CAST(500 + hash(i, 9) %% 20000 AS BIGINT) END AS revenue_cents
FROM r`, rows, sessions, users, Pages, sqlList(Countries))
}

func pagesSQL() string {
	return fmt.Sprintf(`SELECT CAST(p AS BIGINT) AS page_id, CAST(hash(p, 10) %% %d + 1 AS BIGINT) AS section_id, '/p/' || p AS path
FROM range(1, %d) t(p)`, len(Sections), Pages+1)
}

func sectionsSQL() string {
	return fmt.Sprintf(`SELECT CAST(s AS BIGINT) AS section_id, %s[s] AS section_name FROM range(1, %d) t(s)`, sqlList(Sections), len(Sections)+1)
}

// Generate writes events.<format>, pages.<format> and sections.<format>
// into dir ("parquet", "csv" or "ndjson": one JSON object a line, a null
// written as null), events with rows rows. The output is
// deterministic in content (DuckDB's hash of the row number), and
// events.<format> is written last, so its presence means the set is whole.
func Generate(ctx context.Context, dir, format string, rows int64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var opts string
	switch format {
	case "parquet":
		opts = "FORMAT parquet, COMPRESSION snappy"
	case "csv":
		opts = "FORMAT csv, HEADER true, DELIMITER ',', TIMESTAMPFORMAT '%Y-%m-%dT%H:%M:%SZ'"
	case "ndjson":
		opts = "FORMAT json, TIMESTAMPFORMAT '%Y-%m-%dT%H:%M:%SZ'"
	default:
		return fmt.Errorf("unknown format %q", format)
	}
	for _, t := range []struct{ name, sel string }{{"sections", sectionsSQL()}, {"pages", pagesSQL()}, {"events", eventsSQL(rows)}} {
		path := filepath.Join(dir, t.name+"."+format)
		tmp := path + ".tmp"
		stmt := fmt.Sprintf("COPY (%s) TO '%s' (%s)", t.sel, strings.ReplaceAll(tmp, "'", "''"), opts)
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	return nil
}

// AnchorRange is the one period the catalogue's anchor covers (a month:
// the coarsest grain of revenue).
var AnchorRange = [2]string{"2025-06-01", "2025-07-01"}

// Anchor is the anchored value (revenue of AnchorRange) computed by
// DuckDB from the Parquet or CSV files in dir.
func Anchor(ctx context.Context, dir, format string) (string, error) {
	db, err := duck.Open(ctx, duck.Options{Dir: dir, Format: format, Tables: Tables})
	if err != nil {
		return "", err
	}
	defer db.Close()
	var v sql.NullString
	err = db.QueryRowContext(ctx, fmt.Sprintf(`SELECT CAST(sum(revenue_cents) AS VARCHAR) FROM events
WHERE event_type = 'purchase' AND event_time >= TIMESTAMP '%s' AND event_time < TIMESTAMP '%s'`, AnchorRange[0], AnchorRange[1])).Scan(&v)
	if err != nil {
		return "", err
	}
	if !v.Valid {
		return "", fmt.Errorf("no purchase in the anchor range %s–%s: generate more rows", AnchorRange[0], AnchorRange[1])
	}
	return v.String, nil
}
