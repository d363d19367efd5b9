// The Kubernetes manifests (deploy/kubernetes): every document valid against the Kubernetes OpenAPI schema
// (kubernetes-models), and true to the services they run: the settings they pass are settings a service reads, the
// probes' paths are routes each service documents, the ports are the services' ports, the drain fits the grace period.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { testCertificateAuthority } from '@platform/kit/testing';
import { authVars, readAuthConfig } from '@platform/auth';
import { readRegistryConfig, registryVars, REGISTRY_PORT } from '@platform/registry';
import { readSocialConfig, socialVars } from '@platform/social';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const dir = path.join(root, 'deploy', 'kubernetes');
type Doc = { apiVersion: string; kind: string; metadata: { name: string }; [k: string]: unknown };

function docsOf(file: string): Doc[] {
  return parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((d) => {
    assert.deepEqual(d.errors, [], `${file}: YAML errors`);
    return d.toJS() as Doc;
  });
}

const manifestFiles = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const all = manifestFiles.flatMap((f) => docsOf(f).map((doc) => ({ file: f, doc })));
const deployments = all.filter((d) => d.doc.kind === 'Deployment').map((d) => d.doc as Doc & { spec: any });

/** The kubernetes-models class of a document (core v1 under `v1`, a group's under `<group>/<version>`). */
async function modelOf(doc: Doc): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/') : ['', doc.apiVersion];
  const mod = (await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${doc.kind}`)) as Record<string, unknown>;
  return (mod[doc.kind] ?? mod.default) as new (data: unknown) => { validate(): void };
}

/**
 * The environment a pod gets (the ConfigMap and the Secrets' keys), with the placeholders filled in as an operator
 * would: keys of the right shape, and the mounted certificate files (/etc/platform/…) as files of a test CA.
 */
async function manifestEnv(): Promise<Record<string, string>> {
  const files = mkdtempSync(path.join(tmpdir(), 'k8s-env-'));
  const ca = await testCertificateAuthority('platform-ca');
  const leaf = await ca.client('auth');
  const pem: Record<string, string> = { 'ca.crt': ca.cert, 'tls.crt': leaf.cert, 'tls.key': leaf.key };
  for (const [name, text] of Object.entries(pem)) writeFileSync(path.join(files, name), text);
  const config = all.find((d) => d.doc.kind === 'ConfigMap')!.doc as unknown as { data: Record<string, string> };
  const secret = all.find((d) => d.doc.metadata.name === 'platform-secrets')!.doc as unknown as { stringData: Record<string, string> };
  const filled: Record<string, string> = {
    AUTH_MASTER_KEY: randomBytes(32).toString('hex'),
    REGISTRY_MASTER_KEY: randomBytes(32).toString('hex'),
    REGISTRY_ADMIN_PASSWORD: 'a long admin passphrase 1',
    AUTH_INTERNAL_KEYS: 'registry:registry-key-0123456789,social:social-key-0123456789',
    REGISTRY_AUTH_INTERNAL_KEY: 'registry-key-0123456789',
    SOCIAL_AUTH_INTERNAL_KEY: 'social-key-0123456789',
  };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...config.data, ...secret.stringData })) {
    env[k] = filled[k] ?? (v.startsWith('/etc/platform/') ? path.join(files, path.basename(v)) : v);
  }
  return env;
}

describe('Kubernetes manifests', () => {
  it('every document validates against the Kubernetes schema; a broken one does not', async () => {
    assert.ok(all.length >= 15, `${all.length} documents`);
    for (const { file, doc } of all) {
      const Model = await modelOf(doc);
      assert.doesNotThrow(() => new Model(doc).validate(), `${file}: ${doc.kind} ${doc.metadata.name}`);
    }
    // The check can fail: a replica count that is not a number, a probe without a handler port.
    const broken = structuredClone(deployments[0]);
    broken.spec.replicas = 'two';
    const Model = await modelOf(broken);
    assert.throws(() => new Model(broken).validate());
  });

  it('kustomization lists every manifest but the secrets example; the Secrets and ConfigMap the pods read exist', () => {
    const k = docsOf('kustomization.yaml')[0] as unknown as { resources: string[] };
    assert.deepEqual([...k.resources].sort(), manifestFiles.filter((f) => f !== 'secrets.example.yaml').sort());
    const secrets = new Map(all.filter((d) => d.doc.kind === 'Secret').map((d) => [d.doc.metadata.name, d.doc as Doc & { stringData: Record<string, string> }]));
    const configMaps = new Set(all.filter((d) => d.doc.kind === 'ConfigMap').map((d) => d.doc.metadata.name));
    for (const dep of deployments) {
      const pod = dep.spec.template.spec;
      for (const c of pod.containers) {
        for (const from of c.envFrom ?? []) assert.ok(configMaps.has(from.configMapRef.name), `${dep.metadata.name}: ConfigMap ${from.configMapRef.name}`);
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (ref) assert.ok(secrets.get(ref.name)?.stringData[ref.key] !== undefined, `${dep.metadata.name}: secret ${ref.name}/${ref.key}`);
        }
      }
      for (const v of pod.volumes ?? []) if (v.secret) assert.ok(secrets.has(v.secret.secretName), `${dep.metadata.name}: secret volume ${v.secret.secretName}`);
    }
  });

  it('every setting passed is one a service reads (no misspelt name goes unnoticed)', () => {
    const known = new Set<string>();
    for (const spec of [authVars, registryVars, socialVars] as Record<string, { name: string; aliases?: readonly string[] }>[]) {
      for (const v of Object.values(spec)) [v.name, ...(v.aliases ?? [])].forEach((n) => known.add(n));
    }
    const names = [
      ...all.filter((d) => d.doc.kind === 'ConfigMap').flatMap((d) => Object.keys((d.doc as unknown as { data: object }).data)),
      ...all.filter((d) => d.doc.kind === 'Secret' && d.doc.metadata.name === 'platform-secrets').flatMap((d) => Object.keys((d.doc as unknown as { stringData: object }).stringData)),
      ...deployments.flatMap((dep) => dep.spec.template.spec.containers.flatMap((c: { env?: { name: string }[] }) => (c.env ?? []).map((e) => e.name))),
    ];
    assert.deepEqual(names.filter((n) => !known.has(n)), []);
  });

  it('the settings of the manifests make a valid configuration for each service, once the secrets are filled in', async () => {
    const env = await manifestEnv();
    assert.doesNotThrow(() => readAuthConfig(env));
    assert.doesNotThrow(() => readRegistryConfig(env));
    assert.doesNotThrow(() => readSocialConfig(env));
    // As shipped, the secrets example's placeholders are refused: a copy applied unchanged fails at start.
    assert.throws(() => readAuthConfig({ ...env, AUTH_MASTER_KEY: 'CHANGE-ME' }), /AUTH_MASTER_KEY/);
  });

  it('each Deployment runs its service on the service’s port, probes documented routes, drains within its grace period', async () => {
    const env = await manifestEnv();
    const social = readSocialConfig(env);
    const services: Record<string, { port: number; https: boolean }> = {
      auth: { port: readAuthConfig(env).port, https: true },
      registry: { port: (readRegistryConfig(env), REGISTRY_PORT), https: false },
      social: { port: social.port, https: social.tlsMode === 'https' },
    };
    assert.deepEqual(deployments.map((d) => d.metadata.name).sort(), Object.keys(services).sort());
    for (const dep of deployments) {
      const name = dep.metadata.name;
      const pod = dep.spec.template.spec;
      const [c] = pod.containers;
      // The one image, the service chosen by its command: an entry that exists (built from src/main.ts).
      assert.deepEqual(c.command, ['node', `packages/${name}/dist/main.js`]);
      assert.ok(existsSync(path.join(root, 'packages', name, 'src', 'main.ts')));
      const api = c.ports.find((p: { name: string }) => p.name === 'api');
      assert.equal(api.containerPort, services[name].port, `${name} port`);
      const documented = Object.keys(JSON.parse(readFileSync(path.join(root, 'packages', 'client', 'openapi', `${name}.json`), 'utf8')).paths);
      for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
        assert.ok(documented.includes(probe.httpGet.path), `${name}: ${probe.httpGet.path} is a route`);
        assert.equal(probe.httpGet.port, 'api');
        assert.equal(probe.httpGet.scheme, services[name].https ? 'HTTPS' : 'HTTP', `${name} probe scheme`);
      }
      assert.equal(c.readinessProbe.httpGet.path, '/readyz');
      assert.equal(c.livenessProbe.httpGet.path, '/healthz');
      // preStop wait + the kit's drain (HTTP_SHUTDOWN_GRACE_MS, default 10 s) must end before Kubernetes kills the pod.
      const drainSeconds = (c.lifecycle.preStop.sleep.seconds as number) + 10;
      assert.ok(pod.terminationGracePeriodSeconds > drainSeconds, `${name}: grace ${pod.terminationGracePeriodSeconds} s > ${drainSeconds} s`);
      assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory, `${name} resources`);
      assert.equal(c.securityContext.readOnlyRootFilesystem, true);
      assert.equal(pod.securityContext.runAsNonRoot, true);
      // A Service, a PodDisruptionBudget and an autoscaler for each.
      for (const kind of ['Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler']) {
        assert.ok(all.some((d) => d.doc.kind === kind && d.doc.metadata.name === name), `${name}: ${kind}`);
      }
    }
  });
});
