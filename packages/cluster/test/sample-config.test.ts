/**
 * The shipped sample deploy/haproxy/haproxy.cfg stays valid (`haproxy -c`)
 * and keeps the decisions docs/deployment.md describes. Needs only haproxy.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadOrCreateTls } from '@platform/kit';
import { REPO_ROOT, haproxyAvailable, haproxyConfig } from '../src/index.js';

const skip = (await haproxyAvailable()) ? false : 'haproxy is not installed (apt-get install haproxy; .ci/run does)';
const SAMPLE = path.join(REPO_ROOT, 'deploy/haproxy/haproxy.cfg');

describe('HAProxy configurations', { skip }, () => {
  it('the sample deployment passes haproxy -c and keeps the documented decisions', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'haproxy-sample-'));
    try {
      const tls = await loadOrCreateTls({ dir });
      writeFileSync(path.join(dir, 'platform.pem'), `${tls.cert.trim()}\n${readFileSync(path.join(dir, 'tls-key.pem'), 'utf8').trim()}\n`);
      writeFileSync(path.join(dir, 'nodes-ca.pem'), tls.cert);
      const text = readFileSync(SAMPLE, 'utf8');
      const local = text.replaceAll('/etc/haproxy/certs', dir).replace('/run/haproxy/admin.sock', path.join(dir, 'admin.sock'));
      writeFileSync(path.join(dir, 'haproxy.cfg'), local);
      const out = execFileSync('haproxy', ['-c', '-f', path.join(dir, 'haproxy.cfg')], { stdio: 'pipe' }).toString();
      assert.match(out, /Configuration file is valid/);
      for (const decision of [/option httpchk GET \/healthz/, /retry-on conn-failure 503/, /option forwardfor/, /ssl-min-ver TLSv1\.3/, /verify required ca-file/]) {
        assert.match(text, decision);
      }
      assert.doesNotMatch(text, /^\s*[^#\n]*shutdown-sessions/m, 'a drained node finishes its in-flight requests');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the generated test configuration passes haproxy -c', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'haproxy-gen-'));
    try {
      const cfg = path.join(dir, 'h.cfg');
      writeFileSync(cfg, haproxyConfig({ bindPort: 1, backendTls: true, backends: [{ name: 'a', host: '127.0.0.1', port: 2 }] }));
      assert.match(execFileSync('haproxy', ['-c', '-f', cfg], { stdio: 'pipe' }).toString(), /Configuration file is valid/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
