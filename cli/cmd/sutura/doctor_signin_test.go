package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/examples/demo"
)

// TestDoctorSaysTheSignInWasRefused (issue 28): with a wrong password for
// a Postgres source, doctor fails the source saying the database refused
// the service user's sign-in and naming the key, not that the database
// cannot be reached; the password is never printed.
func TestDoctorSaysTheSignInWasRefused(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	d := pgtest.New(t)
	d.Load(t, demo.Data(), b.Definitions().Models)
	pc := d.Config(demo.SourceAlias, nil)
	wrong := append([]byte("wrong-"), pc.Password...)
	dir := demoConfig(t, "pg-1", fmt.Sprintf("{kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}",
		pc.Host, pc.Port, pc.Database, pc.User), "", map[string][]byte{"pgpass": wrong})
	code, out, errOut := runCLI(t, map[string]string{"SUTURA_CONFIG_DIR": dir}, "doctor")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, out+errOut, "refused the sign-in of the service user")
	assert.Contains(t, out+errOut, "user and its password")
	assert.NotContains(t, out+errOut, "cannot be reached")
	assert.NotContains(t, out+errOut, string(wrong))
	t.Logf("%s%s", out, errOut)
}
