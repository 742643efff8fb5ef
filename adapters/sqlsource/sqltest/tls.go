package sqltest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
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

// TLSFiles are the PEM files of a TLS test, as WriteTLS wrote them.
type TLSFiles struct {
	CA, ServerCert, ServerKey, ClientCert, ClientKey string
}

// WriteTLS issues a CA, a server certificate for localhost and 127.0.0.1
// and a client certificate for client, both signed by the CA, and writes
// them with write (name, PEM, mode; it returns the file's path, and may
// give the file to the server's owner). Keys are written 0600,
// certificates 0644.
func WriteTLS(t testing.TB, client string, write func(name string, pem []byte, mode os.FileMode) string) TLSFiles {
	t.Helper()
	ca := Issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "sutura test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil)
	server := Issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}, &ca)
	cl := Issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: client},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, &ca)
	return TLSFiles{
		CA:         write("ca.pem", ca.Cert, 0o644),
		ServerCert: write("server.pem", server.Cert, 0o644), ServerKey: write("server.key", server.Key, 0o600),
		ClientCert: write("client.pem", cl.Cert, 0o644), ClientKey: write("client.key", cl.Key, 0o600),
	}
}
