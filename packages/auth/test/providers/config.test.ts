// Provider configuration: all-or-nothing per provider, named variables, key-set URL rule.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, readConfig, type Env } from '@platform/kit';
import { createPlatformVerifiers, platformProviderVars } from '../../src/providers/index.js';
import { assertAppError } from '@platform/kit/testing';

const KEY_HEX = 'ab'.repeat(32);
const full: Env = {
  AUTH_STORE_A_APP_ID: '480',
  AUTH_STORE_A_ENCRYPTION_KEY: KEY_HEX,
  AUTH_STORE_B_ISSUER: 'https://store.example.com',
  AUTH_STORE_B_JWKS_URL: 'https://store.example.com/jwks',
  AUTH_STORE_B_AUDIENCE: 'store-client',
  AUTH_IDP_A_ISSUER: 'https://accounts.example.com',
  AUTH_IDP_A_JWKS_URL: 'https://www.example.com/oauth2/v3/certs',
  AUTH_IDP_A_AUDIENCE: 'web-client, ios-client,,',
  AUTH_IDP_B_ISSUER: 'https://appleid.example.com',
  AUTH_IDP_B_JWKS_URL: 'https://appleid.example.com/auth/keys',
  AUTH_IDP_B_AUDIENCE: 'com.example.game',
};

function configError(env: Env): ConfigError {
  try {
    readConfig(platformProviderVars, env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err;
  }
  assert.fail('expected a ConfigError');
}

describe('platform provider configuration', () => {
  it('configures nothing when no variable is set', async () => {
    const config = readConfig(platformProviderVars, {});
    assert.deepEqual(config, { storeA: undefined, storeB: undefined, idpA: undefined, idpB: undefined });
    const v = createPlatformVerifiers(config);
    assert.deepEqual(v.configured(), []);
    await assertAppError(v.verify('idp_b', 'a.b.c', { nonce: 'n' }), 400, 'provider_not_configured');
  });

  it('reads every provider when all variables are set', () => {
    const config = readConfig(platformProviderVars, full);
    assert.deepEqual(config.storeA, { appId: 480, encryptionKey: Buffer.from(KEY_HEX, 'hex'), maxTicketAgeSeconds: 300 });
    assert.deepEqual(config.idpA, { issuer: 'https://accounts.example.com', jwksUrl: 'https://www.example.com/oauth2/v3/certs', audience: ['web-client', 'ios-client'] });
    assert.deepEqual(createPlatformVerifiers(config).configured(), ['store_a', 'store_b', 'idp_a', 'idp_b']);
  });

  it('stops on a partially configured provider, naming the missing variables', () => {
    let e = configError({ AUTH_STORE_B_ISSUER: 'https://store.example.com' });
    assert.match(e.message, /AUTH_STORE_B_JWKS_URL, AUTH_STORE_B_AUDIENCE are required: store_b is partially configured/);
    e = configError({ ...full, AUTH_IDP_A_AUDIENCE: '' });
    assert.match(e.message, /AUTH_IDP_A_AUDIENCE is required: idp_a is partially configured/);
    e = configError({ AUTH_IDP_B_JWKS_URL: 'https://appleid.example.com/auth/keys', AUTH_IDP_B_AUDIENCE: 'x' });
    assert.match(e.message, /AUTH_IDP_B_ISSUER is required/);
    e = configError({ AUTH_STORE_A_ENCRYPTION_KEY: KEY_HEX });
    assert.match(e.message, /AUTH_STORE_A_APP_ID is required: store_a is partially configured/);
    e = configError({ AUTH_STORE_A_MAX_TICKET_AGE_SECONDS: '600' });
    assert.match(e.message, /AUTH_STORE_A_APP_ID, AUTH_STORE_A_ENCRYPTION_KEY are required/);
  });

  it('reports every partial provider at once', () => {
    const e = configError({ AUTH_STORE_B_ISSUER: 'https://s', AUTH_IDP_A_ISSUER: 'https://a' });
    assert.equal(e.problems.length, 2);
  });

  it('rejects bad values, naming the variable and never echoing the key', () => {
    const secret = 'cd'.repeat(31);
    let e = configError({ ...full, AUTH_STORE_A_ENCRYPTION_KEY: secret });
    assert.match(e.message, /AUTH_STORE_A_ENCRYPTION_KEY: must be 32 bytes/);
    assert.ok(!e.message.includes(secret));
    e = configError({ ...full, AUTH_STORE_A_APP_ID: 'steam' });
    assert.match(e.message, /AUTH_STORE_A_APP_ID: must be an app id/);
    e = configError({ ...full, AUTH_STORE_A_MAX_TICKET_AGE_SECONDS: '5' });
    assert.match(e.message, /AUTH_STORE_A_MAX_TICKET_AGE_SECONDS: must be an integer from 10 to 86400/);
    e = configError({ ...full, AUTH_IDP_A_AUDIENCE: ' , ' });
    assert.match(e.message, /AUTH_IDP_A_AUDIENCE: must name at least one client id/);
    e = configError({ ...full, AUTH_STORE_B_JWKS_URL: 'not a url' });
    assert.match(e.message, /AUTH_STORE_B_JWKS_URL: must be a URL/);
  });

  it('allows http key-set URLs only on a loopback host', () => {
    for (const url of ['http://127.0.0.1:9000/jwks', 'http://localhost/jwks', 'http://[::1]:8080/jwks', 'https://idp.example.com/jwks']) {
      assert.equal(readConfig(platformProviderVars, { ...full, AUTH_IDP_A_JWKS_URL: url }).idpA?.jwksUrl, new URL(url).href);
    }
    for (const url of ['http://idp.example.com/jwks', 'http://10.0.0.5/jwks', 'http://127.0.0.1.example.com/jwks', 'ftp://127.0.0.1/jwks', 'file:///etc/jwks']) {
      const e = configError({ ...full, AUTH_IDP_A_JWKS_URL: url });
      assert.match(e.message, /AUTH_IDP_A_JWKS_URL: must use https \(http is allowed only for a loopback host\)/);
    }
  });

  it('names the variable when createPlatformVerifiers gets a malformed key by hand', () => {
    assert.throws(
      () => createPlatformVerifiers({ storeA: { appId: 1, encryptionKey: Buffer.alloc(16), maxTicketAgeSeconds: 300 } }),
      (err: unknown) => err instanceof ConfigError && /AUTH_STORE_A_ENCRYPTION_KEY/.test(err.message),
    );
  });
});
