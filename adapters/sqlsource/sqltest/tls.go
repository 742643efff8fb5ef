package sqltest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// Issued is a certificate and its key, PEM-encoded (the key as PKCS #8).
type Issued struct {
	Cert, Key []byte
	x509      *x509.Certificate
	priv      *ecdsa.PrivateKey
}

// Issue makes a certificate for tmpl valid from an hour ago to an hour
// from now, signed by ca (self-signed when ca is nil).
func Issue(t testing.TB, tmpl *x509.Certificate, ca *Issued) Issued {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("sqltest: %v", err)
	}
	parent, signer := tmpl, priv
	if ca != nil {
		parent, signer = ca.x509, ca.priv
	}
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &priv.PublicKey, signer)
	if err != nil {
		t.Fatalf("sqltest: %v", err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("sqltest: %v", err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatalf("sqltest: %v", err)
	}
	return Issued{
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}),
		x509: c, priv: priv,
	}
}
