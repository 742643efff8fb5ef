package config

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// redacted is what every rendering of a [Secret] prints.
const redacted = "[redacted]"

// maxSecretBytes bounds a secret file; a token or password is short, and
// a larger file is almost certainly the wrong file.
const maxSecretBytes = 64 << 10

// Secret holds a token or password read from a file. Every rendering of
// it (fmt verbs, String, GoString, JSON, YAML, text) prints "[redacted]";
// the bytes are reachable only through [Secret.Reveal]. The zero Secret
// is absent. The bytes sit behind a pointer so that even reflection-based
// printers that bypass the methods show an address, not the content.
type Secret struct {
	v *secretValue
}

type secretValue struct {
	b []byte
}

// newSecret wraps b, which the Secret then owns.
func newSecret(b []byte) Secret { return Secret{v: &secretValue{b: b}} }

// Set reports whether the secret was configured.
func (s Secret) Set() bool { return s.v != nil && len(s.v.b) > 0 }

// Reveal returns a copy of the secret's bytes: the one deliberate way to
// use it (to compare a presented token, to open a connection). Never log
// the result.
func (s Secret) Reveal() []byte {
	if s.v == nil {
		return nil
	}
	return bytes.Clone(s.v.b)
}

// Equal reports whether two secrets hold the same bytes, comparing their
// SHA-256 digests in constant time; two absent secrets are not equal.
func (s Secret) Equal(o Secret) bool {
	if !s.Set() || !o.Set() {
		return false
	}
	a, b := sha256.Sum256(s.v.b), sha256.Sum256(o.v.b)
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// String returns "[redacted]".
func (Secret) String() string { return redacted }

// GoString returns "[redacted]", so %#v does not reveal the secret.
func (Secret) GoString() string { return redacted }

// Format prints "[redacted]" for every verb and flag.
func (Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, redacted) }

// MarshalJSON encodes the secret as the JSON string "[redacted]".
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalYAML encodes the secret as the YAML string "[redacted]".
func (Secret) MarshalYAML() (any, error) { return redacted, nil }

// MarshalText encodes the secret as "[redacted]" for text encoders.
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// readSecret reads the secret file at path: a regular file of at most
// maxSecretBytes whose content, less its trailing line ending, is not
// empty. The reason it returns never quotes the content or the path.
func readSecret(path string) (Secret, string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Secret{}, fileReason(err), err
	}
	// A FIFO or device could block or never end; a secret is a file.
	if !info.Mode().IsRegular() {
		return Secret{}, "does not name a regular file", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Secret{}, fileReason(err), err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretBytes+1))
	if err != nil {
		return Secret{}, fileReason(err), err
	}
	if len(b) > maxSecretBytes {
		return Secret{}, "names a file larger than 64 KiB, too large for a secret", nil
	}
	b = bytes.TrimRight(b, "\r\n")
	if len(b) == 0 {
		return Secret{}, "names an empty file", nil
	}
	return newSecret(b), "", nil
}

// fileReason says why a file could not be read without repeating its
// path: the path is a configured value.
func fileReason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "names a file that does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "names a file that cannot be read (permission denied)"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "names a file that cannot be read (" + pe.Err.Error() + ")"
	}
	return "names a file that cannot be read"
}
