package domain

// Capability is the id of something a deployment offers (a tool id). The
// list in app is the single source of what a deployment serves.
type Capability string

// The capabilities of the contract (docs/contract.md §6).
const (
	DescribeCatalog Capability = "describe_catalog"
	AskMetric       Capability = "ask_metric"
	RunSQL          Capability = "run_sql"
)

// Scope is an OAuth scope that grants a capability.
type Scope string

// Scope returns the scope that grants c.
func (c Capability) Scope() Scope {
	switch c {
	case DescribeCatalog:
		return "sutura:catalog.read"
	case AskMetric:
		return "sutura:metrics.ask"
	case RunSQL:
		return "sutura:sql.run"
	}
	return ""
}

// Capabilities lists every capability of the contract.
func Capabilities() []Capability { return []Capability{DescribeCatalog, AskMetric, RunSQL} }
