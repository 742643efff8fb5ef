package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// dims are the dimensions the metrics of events offer.
func dims() string {
	return fmt.Sprintf(`dimensions:
  - {name: country, column: country, values: %s, description: "Country of the visitor's address (ISO 3166 code)."}
  - {name: device, column: device, values: [desktop, mobile, tablet], description: "The device class of the session."}
  - {name: event_type, column: event_type, values: [add_to_cart, click, purchase, view], description: "What the visitor did."}
  - {name: section, column: section_name, via: [event_page, page_section], values: %s, description: "The site section of the page (events → pages → sections)."}
`, flow(Countries), flow(Sections))
}

func flow(vs []string) string { return "[" + strings.Join(vs, ", ") + "]" }

// documents are the catalogue's files; anchor is revenue's anchor value.
func documents(anchor string) map[string]string {
	return map[string]string{
		"models/events.md": `---
kind: model
name: events
source: web
table: events
primary_key: event_id
columns:
  - {name: event_id, type: integer, description: "Event number."}
  - {name: event_time, type: timestamp, description: "When the event happened (UTC)."}
  - {name: session_id, type: text, description: "The visit the event belongs to."}
  - {name: user_id, type: integer, description: "The visitor."}
  - {name: page_id, type: integer, description: "The page the event happened on."}
  - {name: country, type: text, description: "Country code."}
  - {name: device, type: text, description: "desktop, mobile or tablet."}
  - {name: event_type, type: text, description: "view, click, add_to_cart or purchase."}
  - {name: is_view, type: boolean, description: "True for a page view."}
  - {name: is_purchase, type: boolean, description: "True for a purchase."}
  - {name: revenue_cents, type: integer, description: "What a purchase took, in cents; null for other events."}
---
One row per web analytics event.
`,
		"models/pages.md": `---
kind: model
name: pages
source: web
table: pages
primary_key: page_id
columns:
  - {name: page_id, type: integer, description: "Page number."}
  - {name: section_id, type: integer, description: "The section the page is in."}
  - {name: path, type: text, description: "The page's path."}
---
One row per page of the site.
`,
		"models/sections.md": `---
kind: model
name: sections
source: web
table: sections
primary_key: section_id
columns:
  - {name: section_id, type: integer, description: "Section number."}
  - {name: section_name, type: text, description: "The section's name."}
---
One row per site section.
`,
		"relationships/event_page.md": `---
kind: relationship
name: event_page
origin: {model: events, column: page_id}
target: {model: pages, column: page_id}
join_type: many_to_one
---
Each event happened on one page.
`,
		"relationships/page_section.md": `---
kind: relationship
name: page_section
origin: {model: pages, column: section_id}
target: {model: sections, column: section_id}
join_type: many_to_one
---
Each page is in one section.
`,
		"metrics/revenue.md": `---
kind: metric
name: revenue
model: events
measure:
  simple: {aggregate: sum, column: revenue_cents}
time_column: event_time
grains: [day, week, month]
` + dims() + `required_filters:
  - {equals: {column: event_type, value: purchase}}
anchor:
  range: {start: "` + AnchorRange[0] + `", end: "` + AnchorRange[1] + `"}
  value: "` + anchor + `"
audience: open
---
Revenue in cents taken by purchases.
`,
		"metrics/event_count.md": `---
kind: metric
name: event_count
model: events
measure:
  simple: {aggregate: count, column: event_id}
time_column: event_time
grains: [day, week, month, quarter, year]
` + dims() + `audience: open
---
Number of events.
`,
		"metrics/sessions.md": `---
kind: metric
name: sessions
model: events
measure:
  simple: {aggregate: count_distinct, column: session_id}
time_column: event_time
grains: [day, week, month, quarter, year]
` + dims() + `audience: open
---
Number of distinct visits with at least one event in the period.
`,
		"metrics/purchasers.md": `---
kind: metric
name: purchasers
model: events
measure:
  simple: {aggregate: count_distinct, column: user_id}
time_column: event_time
grains: [day, week, month, quarter, year]
` + dims() + `required_filters:
  - {equals: {column: event_type, value: purchase}}
audience: open
---
Number of distinct visitors who bought something in the period.
`,
		"metrics/conversion_rate.md": `---
kind: metric
name: conversion_rate
model: events
measure:
  ratio:
    numerator: {count_if: is_purchase}
    denominator: {count_if: is_view}
    zero_denominator: yields_null
time_column: event_time
grains: [day, week, month, quarter, year]
` + dims() + `audience: open
---
Purchases per page view.
`,
	}
}

// WriteCatalog writes the catalogue into dir (replacing what is there),
// with revenue's anchor value anchor.
func WriteCatalog(dir, anchor string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for name, body := range documents(anchor) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}
