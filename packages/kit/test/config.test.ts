// Setting names (kit config.ts, README.md "Setting names"): a renamed setting still read under its older names
// (the current name wins), a spec's `Service:Section:Key` path read as SERVICE__SECTION__KEY in any case and from a
// JSON file, and settingValue finding the raw text under whichever name was given.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { aliased, ConfigError, deprecatedNamesInUse, readConfig, settingValue, specEnvName, specSetting, vars, withSpecNames } from '../src/config.js';

describe('kit config: setting names and aliases', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a deprecated alias is read when the current name is unset; the current name wins; errors name the spelling read', () => {
    const cert = aliased(vars.optionalString('X_TLS_CERT_FILE'), 'X_TLS_CERT');
    assert.deepEqual(cert.aliases, ['X_TLS_CERT']);
    assert.equal(cert.read({ X_TLS_CERT: '/old.pem' }), '/old.pem');
    assert.equal(cert.read({ X_TLS_CERT: '/old.pem', X_TLS_CERT_FILE: '/new.pem' }), '/new.pem');
    assert.equal(cert.read({ X_TLS_CERT: '' }), undefined);
    const port = aliased(vars.int('X_PORT', { default: 1 }), 'X_LISTEN_PORT');
    assert.throws(() => readConfig({ port }, { X_LISTEN_PORT: 'soon' }), (e: unknown) => e instanceof ConfigError && /X_LISTEN_PORT \(now X_PORT\): must be an integer/.test(e.message));
  });

  it('a spec path is read as SERVICE__SECTION__KEY after the older names, in any case, and from a JSON file', () => {
    assert.equal(specEnvName('Social:Auth:JwksUrl'), 'SOCIAL__AUTH__JWKSURL');
    const limit = specSetting('Svc:Limits:ChatPerMinute', vars.int('SVC_RATE_CHAT_PER_MINUTE', { default: 60 }), 'SVC_LIMITS_CHAT_PER_MINUTE');
    assert.equal(limit.specPath, 'Svc:Limits:ChatPerMinute');
    assert.deepEqual(limit.aliases, ['SVC_LIMITS_CHAT_PER_MINUTE', 'SVC__LIMITS__CHATPERMINUTE']);
    const read = (env: Record<string, string>) => limit.read(withSpecNames(env, { prefix: 'SVC', fileVar: 'SVC_CONFIG_FILE' }));
    assert.equal(read({}), 60);
    assert.equal(read({ Svc__Limits__ChatPerMinute: '7' }), 7);
    assert.equal(read({ SVC__LIMITS__CHATPERMINUTE: '7', SVC_LIMITS_CHAT_PER_MINUTE: '8' }), 8);
    assert.equal(read({ SVC__LIMITS__CHATPERMINUTE: '7', SVC_LIMITS_CHAT_PER_MINUTE: '8', SVC_RATE_CHAT_PER_MINUTE: '9' }), 9);
    const file = path.join(dir, 'svc.json');
    writeFileSync(file, JSON.stringify({ Svc: { Limits: { ChatPerMinute: 5 } } }));
    assert.equal(read({ SVC_CONFIG_FILE: file }), 5);
    assert.equal(read({ SVC_CONFIG_FILE: file, svc__limits__chatperminute: '6' }), 6, 'the environment wins over the file');
    assert.throws(() => read({ SVC_CONFIG_FILE: path.join(dir, 'missing.json') }), (e: unknown) => e instanceof ConfigError && /SVC_CONFIG_FILE: cannot read/.test(e.message));
  });

  it('aliasing an aliased setting keeps both lists; settingValue finds the raw text under the name given', () => {
    const on = aliased(aliased(vars.bool('X_CONSOLE_ENABLED', { default: true }), 'X_CONSOLE'), 'X_UI');
    assert.deepEqual(on.aliases, ['X_CONSOLE', 'X_UI']);
    assert.equal(on.read({ X_UI: 'off' }), false);
    assert.equal(settingValue({ X_CONSOLE: 'off' }, on), 'off');
    assert.equal(settingValue({ X_CONSOLE: 'off', X_CONSOLE_ENABLED: 'on' }, on), 'on');
    assert.equal(settingValue({ X_CONSOLE_ENABLED: '' }, on), undefined);
  });

  it('deprecatedNamesInUse: one warning per older name given instead of the current one; spec spellings are not deprecated', () => {
    const spec = {
      cert: aliased(vars.optionalString('X_TLS_CERT_FILE'), 'X_TLS_CERT'),
      chat: specSetting('X:Limits:ChatPerMinute', vars.int('X_RATE_CHAT_PER_MINUTE', { default: 1 }), 'X_LIMITS_CHAT_PER_MINUTE'),
      port: vars.int('X_PORT', { default: 1 }),
    };
    assert.deepEqual(deprecatedNamesInUse(spec, {}), []);
    assert.deepEqual(deprecatedNamesInUse(spec, { X_TLS_CERT: '/a.pem', X__LIMITS__CHATPERMINUTE: '3', X_PORT: '2' }), [
      'X_TLS_CERT is deprecated: use X_TLS_CERT_FILE (README.md, "Setting names")',
    ]);
    assert.deepEqual(deprecatedNamesInUse(spec, { X_TLS_CERT: '/a.pem', X_TLS_CERT_FILE: '/b.pem', X_LIMITS_CHAT_PER_MINUTE: '3' }), [
      'X_LIMITS_CHAT_PER_MINUTE is deprecated: use X_RATE_CHAT_PER_MINUTE (README.md, "Setting names")',
    ]);
  });
});
