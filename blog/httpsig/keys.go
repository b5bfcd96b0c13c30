package httpsig

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// GenerateKey makes a 2048-bit RSA key, the size fediverse servers use
// and expect.
func GenerateKey() (*rsa.PrivateKey, error) {
	return rsa.GenerateKey(rand.Reader, 2048)
}

// MarshalPrivateKey writes k as a PEM "PRIVATE KEY" block (PKCS #8).
func MarshalPrivateKey(k *rsa.PrivateKey) string {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return ""
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// ParsePrivateKey reads a PEM private key, PKCS #8 ("PRIVATE KEY") or
// PKCS #1 ("RSA PRIVATE KEY"); it must be RSA.
func ParsePrivateKey(pemText string) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(pemText)))
	if block == nil {
		return nil, errors.New("httpsig: no PEM block in the private key")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("httpsig: reading the private key: %w", err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("httpsig: the private key is %T, not RSA", k)
	}
	return rk, nil
}

// MarshalPublicKey writes k as a PEM "PUBLIC KEY" block (PKIX), what an
// actor publishes as publicKeyPem.
func MarshalPublicKey(k *rsa.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(k)
	if err != nil {
		return ""
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// ParsePublicKey reads an actor's publicKeyPem: PKIX ("PUBLIC KEY") or
// PKCS #1 ("RSA PUBLIC KEY"). A key of another kind is an error.
func ParsePublicKey(pemText string) (*rsa.PublicKey, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(pemText)))
	if block == nil {
		return nil, errors.New("httpsig: no PEM block in the public key")
	}
	if k, err := x509.ParsePKCS1PublicKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("httpsig: reading the public key: %w", err)
	}
	rk, ok := k.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("httpsig: the public key is %T, not RSA", k)
	}
	return rk, nil
}
