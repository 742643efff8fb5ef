package tools

// This file is the data: the rules, the reason for each, and the tables
// they read. Change a rule here, with its reason, and never to make a
// build pass (docs/architecture.md §6). docs/architecture.md carries a
// generated copy of these tables; TestDocsAgreeWithRules keeps it in step.

// RuleID identifies one architecture rule; its value is the rule's number.
type RuleID int

// The rules, numbered as in docs/architecture.md.
const (
	RuleAllowedImports RuleID = iota + 1
	RuleAdapterClasses
	RuleAppIsolation
	RuleDomainIsolation
	RuleFileLength
	RuleNoInit
	RuleOneAdmissionBound
	RuleEngineLayers
	RulePackageLength
)

// Rule is one architecture rule: a stable short name and the reason it
// exists, which every violation message repeats.
type Rule struct {
	ID     RuleID // the rule's number
	Name   string // a short, stable name, as in failure messages
	Reason string // why the rule exists, repeated in every violation
}

// Rules lists every rule, in the order of their IDs.
var Rules = []Rule{
	{
		ID:   RuleAllowedImports,
		Name: "allowed-imports",
		Reason: "each module may import only the modules and third-party code its row in ModuleRules names; " +
			"the hexagon holds only if dependencies point inwards (adapters and transports to app, app to domain), " +
			"and every module must build alone with GOWORK=off, because in workspace mode Go lets a module import " +
			"a sibling its go.mod does not require",
	},
	{
		ID:   RuleAdapterClasses,
		Name: "adapter-classes",
		Reason: "adapters of one class (data systems; catalogues; transports) never import each other: each is " +
			"reached only through the port app declares for its class, so the composition root in cli decides " +
			"how they combine, and one adapter's driver never leaks into another's build",
	},
	{
		ID:   RuleAppIsolation,
		Name: "app-isolation",
		Reason: "app declares the ports and the adapters implement them; app importing an adapter or a transport " +
			"reverses that dependency, couples the core to a driver or a wire format, and lets an edge decide " +
			"what a question may ask",
	},
	{
		ID:   RuleDomainIsolation,
		Name: "domain-isolation",
		Reason: "domain is the vocabulary every module and every embedder imports; it imports nothing outside the " +
			"standard library and its go.mod requires nothing, so importing it costs an embedder nothing",
	},
	{
		ID:   RuleFileLength,
		Name: "file-length",
		Reason: "no Go source file is over 1000 lines, anywhere, with no exemptions: a file that long holds more " +
			"than one idea and is split where the ideas part",
	},
	{
		ID:   RuleNoInit,
		Name: "no-init",
		Reason: "adapter modules declare no init function: adapters are registered in the explicit table of the " +
			"composition root in cli, never by the side effect of an import",
	},
	{
		ID:   RuleOneAdmissionBound,
		Name: "one-admission-bound",
		Reason: "runtime.NewAdmission builds the one concurrency bound of the process (runtime.max_concurrent_queries " +
			"spans every transport); it must exist, and exactly one reference to it outside tests, in cli, may build it",
	},
	{
		ID:   RuleEngineLayers,
		Name: "engine-layers",
		Reason: "the embedded engine is a few packages, each read in a sitting, that import one way only (EngineLayers, " +
			"lowest first: from distinct sets, files and footers up to the root that binds, executes, streams and combines); " +
			"a lower package importing a higher one, in its code or its tests, ties what it provides to the code that " +
			"uses it, and the engine becomes one package again in all but name",
	},
	{
		ID:   RulePackageLength,
		Name: "package-length",
		Reason: "no package holds more than 4,000 lines of non-test Go: a package is read as a whole (its files see each " +
			"other's unexported state), so past that it holds more than one idea and is split where the ideas part",
	},
}

// ModulePrefix is the module path of every workspace module, before its
// folder: the module in folder f has the path ModulePrefix + f.
const ModulePrefix = "sutura.dev/"

// testify is the assertion library every module but domain may use in tests.
const testify = "github.com/stretchr/testify"

// adapterModules is what every adapter under adapters/ may import from the
// workspace: the vocabulary, and the compiler for the SQL of its dialect.
var adapterModules = []string{"domain", "semantic"}

// sqlAdapterModules is what a SQL data system adapter may import: an
// adapter's modules and the shared home of what SQL data systems have in
// common, adapters/sqlsource.
var sqlAdapterModules = []string{"domain", "semantic", "adapters/sqlsource"}

// importerModules and importerThirdParty are what every importer may
// import: the vocabulary it produces and a YAML reader (the project's own,
// adapters/importread, over yaml.v3), nothing else.
var (
	importerModules    = []string{"domain", "adapters/importread"}
	importerThirdParty = []string{"go.yaml.in/yaml/v3"}
)

// importerReason says why an importer's row is so narrow.
const importerReason = "it only parses bytes the cli has read (bounded, never through a symbolic link out of the input) " +
	"into the vocabulary, so it needs no compiler, no driver and no I/O, and a hostile input can reach nothing but the parser; " +
	"the shared catalogue writer lives in adapters/catalog-markdown and the cli hands the result over"

// adapterTestPackages are the contract suites of app's ports and their
// fakes, and the one tier table: an adapter's tests (never its code) import
// them to run the suite of its port against itself from its own module
// (docs/architecture.md §1), which reaches app without making the adapter
// depend on it, and to say NOT RUN as every other test does.
var adapterTestPackages = []string{ModulePrefix + "app/conformance", ModulePrefix + "app/apptest", ModulePrefix + "testtier"}

// transportModules is what every transport may import from the workspace.
var transportModules = []string{"domain", "app", "runtime"}

// ModuleRule is the row of one module in the allowed-imports rule. The
// standard library is always allowed, as is the module's own code.
type ModuleRule struct {
	// Folder is the module's folder relative to the workspace root; its
	// module path is ModulePrefix + Folder.
	Folder string
	// Modules lists the folders of the workspace modules it may import.
	Modules []string
	// AnyModule allows every workspace module (the composition root).
	AnyModule bool
	// ThirdParty lists the import path prefixes of third-party code it may
	// import; a prefix matches itself and the paths below it.
	ThirdParty []string
	// AnyThirdParty allows every third-party import.
	AnyThirdParty bool
	// TestThirdParty lists prefixes its test code may import as well.
	TestThirdParty []string
	// TestPackages lists the workspace packages (import paths) its test
	// code may import as well, besides Modules.
	TestPackages []string
	// Reason says why the module's row is what it is.
	Reason string
}

// ModuleRules has one row per module. A module in go.work, or a folder
// with a go.mod under adapters/, without a row here is a violation: add
// its row, with a reason, before its first commit.
var ModuleRules = []ModuleRule{
	{
		Folder: "domain",
		Reason: "the vocabulary embedders import: nothing else, not even testify in its tests",
	},
	{
		Folder:         "semantic",
		Modules:        []string{"domain"},
		TestThirdParty: []string{testify},
		Reason:         "the compiler is a pure function of a question and a bundle: the vocabulary, no I/O, no ports",
	},
	{
		Folder:         "runtime",
		Modules:        []string{"domain"},
		ThirdParty:     []string{"golang.org/x/sync"},
		TestThirdParty: []string{testify},
		Reason:         "admission, deadlines and audit writers: the vocabulary and x/sync's semaphore and errgroup",
	},
	{
		Folder:         "app",
		Modules:        []string{"domain", "semantic", "runtime"},
		TestThirdParty: []string{testify},
		Reason:         "the ports and their use: the compiler and the runtime, but no adapter, transport or driver",
	},
	{
		Folder:         "exec-arrow",
		Modules:        []string{"domain"},
		ThirdParty:     []string{"github.com/apache/arrow-go/v18", "golang.org/x/sync"},
		TestThirdParty: []string{testify},
		TestPackages:   adapterTestPackages,
		Reason:         "the embedded engine executes plans over Arrow; it needs the vocabulary, not SQL rendering; its tests run the data-system contract suite",
	},
	{
		Folder:         "adapters/catalog-markdown",
		Modules:        adapterModules,
		ThirdParty:     []string{"go.yaml.in/yaml/v3", "github.com/santhosh-tekuri/jsonschema/v6"},
		TestThirdParty: []string{testify},
		TestPackages:   adapterTestPackages,
		Reason:         "the catalogue reader: YAML front matter, validated against JSON Schema",
	},
	{
		Folder:         "adapters/postgres",
		Modules:        sqlAdapterModules,
		ThirdParty:     []string{"github.com/jackc/pgx/v5"},
		TestThirdParty: []string{testify},
		TestPackages:   adapterTestPackages,
		Reason:         "a data system: the postgres dialect of the compiler and its driver, pgx",
	},
	{
		Folder:         "adapters/oracle",
		Modules:        sqlAdapterModules,
		ThirdParty:     []string{"github.com/sijms/go-ora/v2"},
		TestThirdParty: []string{testify},
		TestPackages:   adapterTestPackages,
		Reason:         "a data system: the oracle dialect of the compiler and its pure-Go driver, go-ora",
	},
	{
		Folder:         "adapters/bigquery",
		Modules:        sqlAdapterModules,
		ThirdParty:     []string{"cloud.google.com/go/bigquery", "cloud.google.com/go/civil", "google.golang.org/api"},
		TestThirdParty: []string{testify},
		TestPackages:   adapterTestPackages,
		Reason:         "a data system: the bigquery dialect of the compiler and Google's client library over the REST API (jobs with typed named parameters)",
	},
	{
		Folder:         "adapters/clickhouse",
		Modules:        sqlAdapterModules,
		ThirdParty:     []string{"github.com/ClickHouse/clickhouse-go/v2"},
		TestPackages:   adapterTestPackages,
		TestThirdParty: []string{testify},
		Reason:         "a data system: the clickhouse dialect of the compiler and its driver, clickhouse-go over the native protocol",
	},
	{
		Folder: "adapters/clickhouse/chdbtest",
		Modules: []string{"domain", "semantic", "app", "runtime", "exec-arrow", "examples",
			"adapters/catalog-markdown", "adapters/clickhouse", "adapters/sqlsource"},
		TestThirdParty: []string{testify},
		Reason: "test-only: runs the clickhouse dialect on chDB's current ClickHouse engine, loaded with dlopen (cgo), and the " +
			"conformance and differential suites through app on it and on a real server; chDB is linked nowhere else",
	},
	{
		Folder:         "adapters/duckdb",
		Modules:        sqlAdapterModules,
		ThirdParty:     []string{"github.com/duckdb/duckdb-go/v2"},
		TestThirdParty: []string{testify},
		TestPackages:   adapterTestPackages,
		Reason:         "a data system: the duckdb dialect of the compiler and its driver, duckdb-go (cgo; DuckDB is linked in)",
	},
	{
		Folder:         "adapters/sqlsource",
		Modules:        []string{"domain", "semantic", "testtier"},
		TestThirdParty: []string{testify},
		Reason: "what every SQL data system shares (connection and posture configuration, the run_sql guard, bounded row readers, " +
			"cell rendering, error typing, and in sqltest the data-system test harness), written once: the vocabulary, the compiler " +
			"(to render a plan in an adapter's dialect, and in sqltest to compile the questions the adapters' tests ask) and the " +
			"standard library, so that it assumes no driver and serves every SQL adapter, those still to come included; " +
			"sqltest words its NOT RUN lines from the one tier table (testtier)",
	},
	{
		Folder:         "adapters/import-dbt",
		Modules:        importerModules,
		ThirdParty:     importerThirdParty,
		TestThirdParty: []string{testify},
		Reason:         "an importer: a dbt project's semantic layer (YAML) or semantic_manifest.json into definitions; " + importerReason,
	},
	{
		Folder:         "adapters/import-cube",
		Modules:        importerModules,
		ThirdParty:     importerThirdParty,
		TestThirdParty: []string{testify},
		Reason:         "an importer: a Cube data model (YAML) into definitions; " + importerReason,
	},
	{
		Folder:         "adapters/import-osi",
		Modules:        importerModules,
		ThirdParty:     importerThirdParty,
		TestThirdParty: []string{testify},
		Reason:         "an importer: an Open Semantic Interchange (Apache Ossie) model (YAML) into definitions; " + importerReason,
	},
	{
		Folder:         "adapters/importread",
		Modules:        []string{"domain"},
		ThirdParty:     []string{"go.yaml.in/yaml/v3"},
		TestThirdParty: []string{testify},
		Reason: "the importers' YAML reader, written once: bounded reading of YAML documents, positions, node helpers that never panic, " +
			"and the format-independent result; it only parses bytes it is given into the vocabulary, so it needs no compiler, no driver and no I/O",
	},
	{
		Folder:         "transport-mcp",
		Modules:        transportModules,
		ThirdParty:     []string{"github.com/modelcontextprotocol/go-sdk", "github.com/google/jsonschema-go"},
		TestThirdParty: []string{testify},
		Reason:         "the MCP surface over the official Go SDK: parses the wire shape into a question, nothing more",
	},
	{
		Folder:         "transport-http",
		Modules:        transportModules,
		ThirdParty:     []string{"github.com/prometheus/client_golang", "github.com/google/jsonschema-go"},
		TestThirdParty: []string{testify},
		Reason:         "the HTTP surface with its OpenAPI and auth gates; Prometheus for the metrics endpoint; jsonschema-go (the MCP SDK's schema library) for the HTTP-only bodies of the generated OpenAPI",
	},
	{
		Folder:         "transport-inproc",
		Modules:        transportModules,
		TestThirdParty: []string{testify},
		Reason:         "the in-process tool server for Go agent kernels: the app surface, no third-party code",
	},
	{
		Folder:        "cli",
		AnyModule:     true,
		AnyThirdParty: true,
		Reason:        "the one binary and the only composition root: it builds every adapter, the bound, the transports",
	},
	{
		Folder:         "examples",
		Modules:        []string{"domain", "app", "runtime", "transport-inproc"},
		ThirdParty:     []string{"github.com/apache/arrow-go/v18"},
		TestThirdParty: []string{testify, "go.yaml.in/yaml/v3"},
		Reason:         "demo data and runnable examples over the in-process transport; Arrow for the demo tables; its tests read the demo's front matter with YAML, independently of the catalogue adapter",
	},
	{
		Folder: "bench",
		Modules: []string{"domain", "semantic", "exec-arrow", "examples", "adapters/catalog-markdown", "adapters/postgres",
			"app", "cli"},
		ThirdParty:     []string{"github.com/duckdb/duckdb-go/v2", "github.com/modelcontextprotocol/go-sdk"},
		TestThirdParty: []string{testify},
		Reason: "the benchmark harness and the corpus generator: they measure sutura's engine against DuckDB on the same files (the server binary links DuckDB only through adapters/duckdb, for duckdb sources); " +
			"a federated deployment is measured as the product itself, opened by cli/compose and asked through app; " +
			"the soak asks the served binary over MCP as agents do, through the official MCP SDK's client",
	},
	{
		Folder: "examples/exactcheck",
		Modules: []string{"domain", "semantic", "app", "runtime", "exec-arrow", "testtier",
			"adapters/duckdb", "adapters/postgres", "adapters/clickhouse", "adapters/clickhouse/chdbtest", "adapters/sqlsource"},
		TestThirdParty: []string{testify, "github.com/duckdb/duckdb-go/v2", "github.com/apache/arrow-go/v18"},
		Reason: "test-only: the property test of exact numbers writes random tables as CSV, Parquet (Arrow) and NDJSON, answers them with " +
			"the embedded engine and with the DuckDB, PostgreSQL and ClickHouse sources and chDB on the same data, and requires the same bytes; " +
			"it links DuckDB and the drivers so that the engine does not",
	},
	{
		Folder: "examples/importcheck",
		Modules: []string{"domain", "semantic", "exec-arrow", "adapters/catalog-markdown",
			"adapters/import-dbt", "adapters/import-cube", "adapters/import-osi", "adapters/importread"},
		TestThirdParty: []string{testify, "github.com/duckdb/duckdb-go/v2"},
		Reason: "the test that imported metrics keep their meaning: it imports each format, answers with the compiler and the embedded engine, " +
			"and compares with hand-written SQL run by DuckDB, which only its tests link",
	},
	{
		Folder:         "examples/kernel",
		AnyModule:      true,
		TestThirdParty: []string{testify},
		Reason:         "a runnable agent kernel embedding sutura in process: it builds its process through cli/compose, the composition root, and talks to it through transport-inproc only",
	},
	{
		Folder:         "tools",
		TestThirdParty: []string{testify},
		Reason:         "the architecture checks read the other modules with go list and go/parser, never by import",
	},
	{
		Folder: "testtier",
		Reason: "the one table of test tiers and the NOT RUN/required decision every test uses: the standard library only, " +
			"so any module's tests and the adapters' test harnesses may import it without gaining a dependency",
	},
}

// AdapterClass is a set of modules that implement the same kind of port
// and therefore never import each other.
type AdapterClass struct {
	Name    string   // the class, plural: "data systems"
	Members []string // the folders of its modules
	Reason  string   // why its members stay apart
	// Libraries are the folders of the class's shared libraries: not
	// members (no port is reached through them), so members may import
	// them, and they import no member, so nothing of one member reaches
	// another through them.
	Libraries []string
}

// AdapterClasses lists the classes of the adapter-classes rule. Members
// that do not exist yet are listed so the rule holds from their first
// commit.
var AdapterClasses = []AdapterClass{
	{
		Name: "data systems",
		Members: []string{
			"exec-arrow", "adapters/postgres", "adapters/oracle",
			"adapters/duckdb", "adapters/clickhouse", "adapters/bigquery",
		},
		Reason: "each executes legs behind app's data-system port; combining legs is the planner's job",
		// What the SQL data systems share is written once below them.
		Libraries: []string{"adapters/sqlsource"},
	},
	{
		Name:    "catalogues",
		Members: []string{"adapters/catalog-markdown", "adapters/import-dbt", "adapters/import-cube", "adapters/import-osi"},
		Reason:  "each produces definitions on its own, all validated once at start-up by app",
	},
	{
		Name:    "transports",
		Members: []string{"transport-mcp", "transport-http", "transport-inproc"},
		Reason:  "each renders the same app surface; none decides anything for another",
	},
}

// AppForbidden holds path.Match patterns of the module folders app must
// not import: every adapter, the embedded engine and every transport.
var AppForbidden = []string{"adapters/*", "exec-arrow", "transport-*"}

// DomainFolder is the folder of the vocabulary module of domain-isolation.
const DomainFolder = "domain"

// AppFolder is the folder of the ports module of app-isolation.
const AppFolder = "app"

// MaxFileLines is the most lines a Go source file may have.
const MaxFileLines = 1000

// MaxPackageLines is the most lines of non-test Go one package (one
// folder's .go files, _test.go files aside) may hold.
const MaxPackageLines = 4000

// FileLengthSkip lists the folders, relative to the workspace root, that
// the file-length walk skips besides every .git: the fixture workspaces,
// whose planted violations the tests check on their own.
var FileLengthSkip = []string{"tools/testdata"}

// InitFree holds path.Match patterns of the module folders that must
// declare no init function.
var InitFree = []string{"adapters/*", "exec-arrow"}

// The one-admission-bound rule: AdmissionConstructor of AdmissionPackage
// is referenced exactly once outside tests, from module AdmissionCaller.
const (
	AdmissionPackage     = "sutura.dev/runtime"
	AdmissionConstructor = "NewAdmission"
	AdmissionCaller      = "cli"
)

// RuleByID returns the rule with the given ID, and false if there is none.
func RuleByID(id RuleID) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// ModuleRuleFor returns the row of the module in folder, and false if the
// module has none.
func ModuleRuleFor(folder string) (ModuleRule, bool) {
	for _, r := range ModuleRules {
		if r.Folder == folder {
			return r, true
		}
	}
	return ModuleRule{}, false
}

// EngineFolder is the folder of the embedded engine's module, whose
// packages engine-layers orders.
const EngineFolder = "exec-arrow"

// EngineLayers lists the packages of the engine's module, lowest first, as
// paths relative to the module ("." is its root package). A package may
// import packages listed before it, never one listed after it; every
// package of the module (internal/... included) must be listed.
var EngineLayers = []string{
	"internal/grow",     // room made in slices a table at a time: cleared preemptibly, on huge pages
	"internal/thrift",   // Thrift's compact protocol read from bytes (Parquet page headers)
	"internal/rle",      // Parquet's RLE/bit-packed hybrid: definition levels and dictionary indexes
	"internal/i128",     // 128-bit integers: decimal coefficients and sums, across scales
	"internal/value",    // a finished aggregate's value: its cell, its number, an average's quotient
	"internal/distinct", // exact distinct counts per group: partitioned, spillable sets
	"internal/intern",   // a column's distinct texts numbered in first-seen order, bytes end to end, hashes kept
	"internal/gate",     // a question's share of the working set; refused for memory others hold, asked again when one ends
	"internal/files",    // a table's files: names, formats, codecs, parts, identity
	"internal/footer",   // Parquet footers decoded once while their bytes stay the same
	"internal/parse",    // a text field read as the integer, real, boolean, date or timestamp it spells
	"internal/column",   // a loaded column, its builders and what is derived from it
	"internal/number",   // a text column's distinct values numbered in spilled partitions, for distinct counts
	"internal/fillsize", // what the background fill will hold, from what a stream met
	"internal/text",     // CSV and NDJSON text cut into records and fields
	"internal/format",   // reading files into columns: the loader, Parquet pages, CSV and NDJSON
	"internal/cache",    // cached columns and the working set's accounting; the background fill
	"internal/check",    // start-up checks of a table's files: footers, text samples, the deferred whole read
	"internal/join",     // the rows of a joined table from the key values joined to it
	"internal/groups",   // a scan's group ids: bucket and codes packed into a key, or held whole; codebooks
	"internal/match",    // filters compiled against one column: rows tested, outcomes per dictionary entry, statistics
	"internal/exact",    // order-free sums: integer sums with overflow told, compensated float sums, decimal sums, minima and maxima at one scale
	"internal/kept",     // a batch's rows under keep flags: set, counted per bucket, their extremes
	"internal/passrate", // which of a scan's range and early filters goes first, by the rows each passed
	"internal/kernel",   // the vectorised kernels: keys, aggregation, the scan, unions
	"internal/rank",     // the order of an answer's groups: a top-n by a bounded heap, values compared
	"internal/answer",   // a scan's aggregates finished into an answer's rows: values, order, bounds
	"internal/legrows",  // a federated plan's legs' rows as the combine takes them
	".",                 // the engine: bind, execute, stream, meter cost, combine legs
}
