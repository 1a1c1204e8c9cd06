package server

import (
	"fmt"

	gossh "golang.org/x/crypto/ssh"
)

// The algorithms the server offers: what OpenSSH 9 and other current
// clients negotiate, and nothing built on SHA-1 (x/crypto still offers
// diffie-hellman-group14-sha1 and hmac-sha1 by default), nor the
// encrypt-and-MAC MACs, which MAC the plaintext. Key exchange is by
// curves only: a Diffie-Hellman group costs the server a modular
// exponentiation of thousands of bits per handshake, which any client
// could ask for. docs/operating.md ("Algorithms") lists them.
var (
	kexAlgorithms = []string{gossh.KeyExchangeMLKEM768X25519, gossh.KeyExchangeCurve25519}
	ciphers       = []string{gossh.CipherChaCha20Poly1305, gossh.CipherAES256GCM, gossh.CipherAES128GCM,
		gossh.CipherAES256CTR, gossh.CipherAES192CTR, gossh.CipherAES128CTR}
	macs = []string{gossh.HMACSHA256ETM, gossh.HMACSHA512ETM}
)

// algorithms is the part of the server's SSH configuration that chooses
// algorithms.
func algorithms() gossh.Config {
	return gossh.Config{KeyExchanges: kexAlgorithms, Ciphers: ciphers, MACs: macs}
}

// sha2HostKey returns key as the server's host key: an RSA key signs with
// SHA-2 only (rsa-sha2-512, rsa-sha2-256), never ssh-rsa, whose
// signatures are SHA-1. The key the server creates is ed25519; an RSA one
// is an operator's --host-key.
func sha2HostKey(key gossh.Signer) (gossh.Signer, error) {
	if key.PublicKey().Type() != gossh.KeyAlgoRSA {
		return key, nil
	}
	as, ok := key.(gossh.AlgorithmSigner)
	if !ok {
		return nil, fmt.Errorf("RSA host key %T cannot sign with SHA-2", key)
	}
	return gossh.NewSignerWithAlgorithms(as, []string{gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256})
}
