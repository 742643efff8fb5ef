package httpapi

import (
	"context"
	"net/http"
	goruntime "runtime"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"sutura.dev/app"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// MetricsConfig configures Metrics. Every zero value is a default.
type MetricsConfig struct {
	// Version is the build version in sutura_build_info; "" is "dev".
	Version string
	// Admission is the process's one admission bound, read (never
	// acquired) for the in-flight and capacity gauges; nil leaves them out.
	Admission *runtime.Admission
	// Collectors are further collectors to expose, such as the embedded
	// engine's cache size. Their labels must obey the rule below.
	Collectors []prometheus.Collector
}

// Metrics is the Prometheus registry of one process, private to it (never
// the global default registry). No label ever holds question text, a
// value, a caller identity or a correlation id: labels are routes of the
// route table, statuses, capabilities and the codes of the contract.
type Metrics struct {
	reg             *prometheus.Registry
	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	outcomes        *prometheus.CounterVec
	questions       *prometheus.HistogramVec
	shed            prometheus.Counter
	spend           spendMetrics
}

// NewMetrics builds the registry with the request, outcome, admission,
// latency, build and Go runtime metrics.
func NewMetrics(cfg MetricsConfig) (*Metrics, error) {
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sutura_http_requests_total",
			Help: "HTTP requests by route pattern and response status (499: the client went away)."}, []string{"route", "status"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sutura_http_request_duration_seconds",
			Help: "HTTP request duration by route pattern.", Buckets: prometheus.DefBuckets}, []string{"route"}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sutura_outcomes_total",
			Help: "Audited outcomes of every transport by capability, outcome (answer, refusal, failure) and code."}, []string{"capability", "outcome", "code"}),
		questions: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sutura_question_duration_seconds",
			Help:    "Time to the outcome of a question, admission included, by outcome.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}}, []string{"outcome"}),
		shed: prometheus.NewCounter(prometheus.CounterOpts{Name: "sutura_admission_shed_total",
			Help: "Questions refused at_capacity: no execution slot came free within the admission window."}),
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{Name: "sutura_build_info", Help: "The build: version and Go version; always 1.",
		ConstLabels: prometheus.Labels{"version": cfg.Version, "goversion": goruntime.Version()}})
	build.Set(1)
	m.spend = newSpendMetrics()
	cs := []prometheus.Collector{m.requests, m.requestDuration, m.outcomes, m.questions, m.shed, build,
		m.spend.scanned, m.spend.budgetRefusals, m.spend.ceilingRefusals,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})}
	if a := cfg.Admission; a != nil {
		cs = append(cs,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sutura_admission_in_flight", Help: "Questions holding an execution slot now."},
				func() float64 { return float64(a.InUse()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sutura_admission_capacity", Help: "Execution slots (runtime.max_concurrent_queries)."},
				func() float64 { return float64(a.Capacity()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sutura_admission_waiting", Help: "Questions waiting for an execution slot now."},
				func() float64 { return float64(a.Waiting()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sutura_admission_in_flight_peak", Help: "The most questions that held a slot at once since the start; never above the capacity."},
				func() float64 { return float64(a.Peak()) }))
	}
	cs = append(cs, cfg.Collectors...)
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Audit wraps the audit sink given to app.New so that every question of
// every transport (HTTP, MCP, in-process) is counted by outcome and code
// and timed, from the record that is written anyway. Records are counted
// after next has stored them; a record that could not be stored is counted
// as an internal failure, which is what its caller gets.
func (m *Metrics) Audit(next app.AuditSink) app.AuditSink { return &countingSink{m: m, next: next} }

type countingSink struct {
	m    *Metrics
	next app.AuditSink
}

func (s *countingSink) Write(ctx context.Context, rec domain.AuditRecord) error {
	err := s.next.Write(ctx, rec)
	if rec.Outcome == "started" && err == nil {
		// run_sql's record before its statement runs: the outcome comes
		// in its own record.
		return nil
	}
	outcome, code := rec.Outcome, rec.Code
	if err != nil {
		outcome, code = "failure", string(Internal)
	}
	s.m.observeOutcome(rec.Capability, outcome, code, time.Duration(rec.DurationMS*float64(time.Millisecond)))
	if err == nil {
		s.m.spend.observe(rec)
	}
	return err
}

// Probe forwards to the sink it wraps (app.AuditProber), so /ready and the
// pipeline see a failing audit sink through the count.
func (s *countingSink) Probe(ctx context.Context) error {
	if p, ok := s.next.(app.AuditProber); ok {
		return p.Probe(ctx)
	}
	return nil
}

// observeOutcome counts one outcome. Every label is checked against the
// closed sets of the contract, so a record can never carry a value into a
// label.
func (m *Metrics) observeOutcome(c domain.Capability, outcome, code string, d time.Duration) {
	if !slices.Contains(domain.Capabilities(), c) {
		c = "other"
	}
	switch outcome {
	case "answer", "estimate":
		code = ""
	case "refusal":
		if !domain.Code(code).Known() {
			code = "other"
		}
	case "failure":
		if !app.FailureCode(code).Known() {
			code = "other"
		}
	default:
		outcome, code = "other", "other"
	}
	m.outcomes.WithLabelValues(string(c), outcome, code).Inc()
	if c == domain.AskMetric {
		m.questions.WithLabelValues(outcome).Observe(d.Seconds())
	}
	if code == "at_capacity" {
		m.shed.Inc()
	}
}

// observeRequest counts one HTTP request.
func (m *Metrics) observeRequest(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.requestDuration.WithLabelValues(route).Observe(d.Seconds())
}

// handler serves the registry in the Prometheus text format.
func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
