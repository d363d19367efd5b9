// Auth's settings renamed to the shape every service uses (README.md, "Setting names") keep their older names as
// deprecated aliases: AUTH_TLS_CERT and AUTH_TLS_KEY are read as AUTH_TLS_CERT_FILE and AUTH_TLS_KEY_FILE,
// AUTH_DEVICE_VERIFICATION_URI as AUTH_DEVICE_VERIFICATION_URL.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readAuthConfig } from '../src/config.js';

describe('auth config: file settings end in _FILE', () => {
  it('reads AUTH_TLS_CERT_FILE / AUTH_TLS_KEY_FILE, and the older AUTH_TLS_CERT / AUTH_TLS_KEY when only they are set', () => {
    const now = readAuthConfig({ AUTH_TLS_CERT_FILE: '/etc/platform/auth.pem', AUTH_TLS_KEY_FILE: '/etc/platform/auth-key.pem' });
    assert.deepEqual([now.tlsCertFile, now.tlsKeyFile], ['/etc/platform/auth.pem', '/etc/platform/auth-key.pem']);
    const old = readAuthConfig({ AUTH_TLS_CERT: '/old/auth.pem', AUTH_TLS_KEY: '/old/auth-key.pem' });
    assert.deepEqual([old.tlsCertFile, old.tlsKeyFile], ['/old/auth.pem', '/old/auth-key.pem']);
    const both = readAuthConfig({ AUTH_TLS_CERT: '/old/auth.pem', AUTH_TLS_CERT_FILE: '/new/auth.pem', AUTH_TLS_KEY: '/old/auth-key.pem' });
    assert.deepEqual([both.tlsCertFile, both.tlsKeyFile], ['/new/auth.pem', '/old/auth-key.pem'], 'the current name wins, each setting on its own');
    const none = readAuthConfig({});
    assert.deepEqual([none.tlsCertFile, none.tlsKeyFile], [undefined, undefined]);
  });

  it('a URL ends in _URL: AUTH_DEVICE_VERIFICATION_URL, and the older AUTH_DEVICE_VERIFICATION_URI', () => {
    assert.equal(readAuthConfig({ AUTH_DEVICE_VERIFICATION_URL: 'https://play.example/device' }).deviceVerificationUri, 'https://play.example/device');
    assert.equal(readAuthConfig({ AUTH_DEVICE_VERIFICATION_URI: 'https://old.example/device' }).deviceVerificationUri, 'https://old.example/device');
    assert.throws(() => readAuthConfig({ AUTH_DEVICE_VERIFICATION_URI: 'ftp://x' }), /AUTH_DEVICE_VERIFICATION_URL \(or AUTH_DEVICE_VERIFICATION_URI\) must be an http\(s\) URL/);
  });
});
