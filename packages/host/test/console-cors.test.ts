// npm start lets the web console (served by the registry, docs/console.md) call auth and social from the browser:
// what CORS_ALLOWED_ORIGINS the host gives them in each case.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { consoleOrigins, corsWithConsole } from '../src/index.js';

const CONSOLE = 'http://localhost:3004,http://127.0.0.1:3004';

describe('host: CORS for the console', () => {
  it('embedded and unset: stays unset (localhost origins are allowed already)', () => {
    assert.equal(corsWithConsole({}, 3004), undefined);
  });
  it('on DATABASE_URL and unset: the console origins (none would be allowed otherwise)', () => {
    assert.equal(corsWithConsole({ DATABASE_URL: 'postgres://x' }, 3004), CONSOLE);
    assert.deepEqual(consoleOrigins(3100), ['http://localhost:3100', 'http://127.0.0.1:3100']);
  });
  it('a list: the list and the console origins, once each', () => {
    assert.equal(corsWithConsole({ CORS_ALLOWED_ORIGINS: 'https://game.example, http://localhost:3004' }, 3004), `https://game.example,${CONSOLE}`);
  });
  it('`*` and REGISTRY_CONSOLE=off: untouched', () => {
    assert.equal(corsWithConsole({ CORS_ALLOWED_ORIGINS: '*', DATABASE_URL: 'postgres://x' }, 3004), '*');
    assert.equal(corsWithConsole({ REGISTRY_CONSOLE: 'off', DATABASE_URL: 'postgres://x' }, 3004), undefined);
    assert.equal(corsWithConsole({ REGISTRY_CONSOLE: 'false', CORS_ALLOWED_ORIGINS: 'https://a.example' }, 3004), 'https://a.example');
  });

  it('REGISTRY_CONSOLE_ENABLED=off (the current name of REGISTRY_CONSOLE) too; it wins over the older name', () => {
    assert.equal(corsWithConsole({ REGISTRY_CONSOLE_ENABLED: 'off', DATABASE_URL: 'postgres://x' }, 3004), undefined);
    assert.equal(corsWithConsole({ REGISTRY_CONSOLE_ENABLED: 'on', REGISTRY_CONSOLE: 'off', DATABASE_URL: 'postgres://x' }, 3004), 'http://localhost:3004,http://127.0.0.1:3004');
  });
});
