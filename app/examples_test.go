package app_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// TestStartUpChecksExamplesUnderTheDeploymentsGovernance: an example is
// checked by the compiler at start-up under the deployment's own ceilings,
// so an example that a stricter deployment would refuse (two lookup legs
// where one is allowed) stops the start, naming the example and the code;
// under the default ceilings it passes.
func TestStartUpChecksExamplesUnderTheDeploymentsGovernance(t *testing.T) {
	k := domain.Knowledge{Examples: []domain.Example{{Name: "revenue_by_zone", Asked: []string{"revenue by zone"},
		Question: domain.Question{Metrics: []string{"revenue"}, Grain: domain.Month, Dimensions: []string{"zone"},
			Range: domain.TimeSpan{Fixed: &domain.Range{Start: domain.DateOf(2025, 1, 1), End: domain.DateOf(2025, 4, 1)}}}}}}
	b, err := domain.NewBundle("v1", apptest.FederatedDefinitions(), k)
	require.NoError(t, err)
	sys := &apptest.System{}
	sources := apptest.FederatedSources(sys, sys, sys)
	today := domain.DateOf(2026, 1, 1)

	require.NoError(t, app.CheckBundleWith(context.Background(), b, sources, app.Governance{}, today))

	err = app.CheckBundleWith(context.Background(), b, sources, app.Governance{LookupLegCeiling: 1}, today)
	var ee *semantic.ExampleError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, "revenue_by_zone", ee.Example)
	assert.Equal(t, domain.PlanNeedsTooManyLookupLegs, ee.Code)
}
