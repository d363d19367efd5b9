// Auth's settings renamed to the shape every service uses (README.md, "Setting names") keep their older names as
// deprecated aliases: AUTH_TLS_CERT and AUTH_TLS_KEY are read as AUTH_TLS_CERT_FILE and AUTH_TLS_KEY_FILE.
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
});
