/**
 * The deployment files under deploy/ checked against the code they deploy: every variable they set is a setting
 * the configuration reads and the configuration loads from them, probe and health-check paths are operations of
 * the API, ports, user and writable paths match the Containerfile, secret references resolve, and the Kubernetes
 * objects have the fields their kinds require. Real validators run where Debian packages them: docker-compose
 * (compose file schema), yamllint and promtool (alert rules, and their unit tests in alerts.test.yaml).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, settingNames, unknownSettings } from '../../src/config.js';
import { createDb } from '../../src/db/index.js';
import { PrometheusMetrics } from '../../src/system/prometheus.js';
import { installHint, missingTools, requireTool } from '../support/tools.js';

const root = resolve(import.meta.dirname, '../..');
const deployDir = join(root, 'deploy');
const kubernetesDir = join(deployDir, 'kubernetes');
/** Parsed YAML, read by the shape each test expects (and checks). */
type Doc = Record<string, any>;

const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** What the image itself says: its ENV lines, its user id and its health-check URL. */
const image = (() => {
  // The final stage: what follows the last FROM.
  const text = read('Containerfile').split(/^FROM /m).pop()!;
  const env: Record<string, string> = {};
  for (const [, block] of text.matchAll(/^ENV ((?:.*\\\n)*.*)$/gm)) for (const [, name, value] of block.matchAll(/([A-Za-z_]+)=(\S+)/g)) env[name] = value;
  return {
    env,
    uid: Number(/^ARG VIGIL_UID=(\d+)$/m.exec(text)![1]),
    healthcheckPath: new URL(/HEALTHCHECK[\s\S]*?fetch\('http:\/\/127\.0\.0\.1:' \+ [^+]+\+ '([^']+)'/.exec(text)![1], 'http://x').pathname,
  };
})();

const swagger = JSON.parse(read('generated/swagger.json')) as { basePath: string; paths: Record<string, Record<string, unknown>> };

/** True when GET `path` (as a client sends it, with /v2) is an operation of the spec. */
function isGetOperation(path: string): boolean {
  if (!path.startsWith(`${swagger.basePath}/`)) return false;
  return Boolean(swagger.paths[path.slice(swagger.basePath.length)]?.get);
}

/** Loads the configuration as a node would, and lists what it would warn about. */
function configFrom(env: Record<string, string>) {
  return { config: loadConfig(env), unknown: unknownSettings(env).map((u) => u.variable) };
}

describe('deploy/kubernetes', () => {
  const files = readdirSync(kubernetesDir).filter((f) => f.endsWith('.yaml')).sort();
  const kustomization = yaml.load(readFileSync(join(kubernetesDir, 'kustomization.yaml'), 'utf8')) as Doc;
  const objects: Doc[] = files.filter((f) => f !== 'kustomization.yaml').flatMap((f) => yaml.loadAll(readFileSync(join(kubernetesDir, f), 'utf8')) as Doc[]);
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const one = (kind: string) => {
    const found = byKind(kind);
    expect(found, kind).toHaveLength(1);
    return found[0];
  };

  it('lists every manifest in the kustomization, and nothing else', () => {
    expect(kustomization).toMatchObject({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' });
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml'));
  });

  // The fields each kind must have to be accepted, as paths into the object.
  const KINDS: Record<string, { apiVersion: string; required: string[]; namespaced: boolean }> = {
    Namespace: { apiVersion: 'v1', required: ['metadata.name'], namespaced: false },
    Secret: { apiVersion: 'v1', required: ['metadata.name', 'type'], namespaced: true },
    Service: { apiVersion: 'v1', required: ['metadata.name', 'spec.selector', 'spec.ports'], namespaced: true },
    Deployment: { apiVersion: 'apps/v1', required: ['metadata.name', 'spec.selector.matchLabels', 'spec.template.metadata.labels', 'spec.template.spec.containers'], namespaced: true },
    PodDisruptionBudget: { apiVersion: 'policy/v1', required: ['metadata.name', 'spec.selector.matchLabels'], namespaced: true },
  };
  const at = (o: Doc, path: string): unknown => path.split('.').reduce<unknown>((v, k) => (v as Doc | undefined)?.[k], o);

  it('has only known kinds at their current API versions, each with its required fields, all in one namespace', () => {
    expect(objects.length).toBeGreaterThan(0);
    const namespace = one('Namespace').metadata.name;
    expect(kustomization.namespace).toBe(namespace);
    for (const o of objects) {
      const kind = KINDS[o.kind];
      expect(kind, `unknown kind ${o.kind}`).toBeDefined();
      expect(o.apiVersion, o.kind).toBe(kind.apiVersion);
      for (const path of kind.required) expect(at(o, path), `${o.kind} ${o.metadata?.name}: ${path}`).toBeTruthy();
      expect(o.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      if (kind.namespaced) expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(namespace);
    }
  });

  const deploymentNamed = (name: string) => {
    const found = byKind('Deployment').filter((d) => d.metadata.name === name);
    expect(found, name).toHaveLength(1);
    return found[0];
  };
  /** The API Deployment (behind the Service) and the worker Deployment: each is checked the same way. */
  const DEPLOYMENTS = { vigil: { roles: ['api'] }, 'vigil-worker': { roles: ['analyzer', 'feeds', 'reports', 'notifications', 'scheduler'] } };
  const containerOf = (name: string) => {
    const containers = deploymentNamed(name).spec.template.spec.containers as Doc[];
    expect(containers).toHaveLength(1);
    return containers[0];
  };
  const secret = () => one('Secret');
  const secretValues = (): Record<string, string> => {
    const s = secret();
    const decoded = Object.fromEntries(Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    return { ...decoded, ...(s.stringData ?? {}) };
  };
  const podName = 'vigil-7d9c5b6f4-x2x4q';

  /** The container's environment as the pod would see it: the image's ENV, then the manifest's (secrets resolved). */
  const podEnvOf = (name: string): Record<string, string> => {
    const env: Record<string, string> = { ...image.env };
    for (const e of containerOf(name).env as Doc[]) {
      if (e.value !== undefined) env[e.name] = String(e.value);
      else if (e.valueFrom?.secretKeyRef) env[e.name] = secretValues()[e.valueFrom.secretKeyRef.key];
      else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.name') env[e.name] = podName;
      else throw new Error(`${e.name}: a source this test does not know`);
    }
    return env;
  };

  it('has an API Deployment and a worker Deployment, together holding every role once', () => {
    expect(byKind('Deployment').map((d) => d.metadata.name).sort()).toEqual(Object.keys(DEPLOYMENTS).sort());
    for (const [name, { roles }] of Object.entries(DEPLOYMENTS)) expect(configFrom(podEnvOf(name)).config.roles, name).toEqual(roles);
  });

  for (const name of Object.keys(DEPLOYMENTS)) {
    describe(`Deployment ${name}`, () => {
      const deployment = () => deploymentNamed(name);
      const container = () => containerOf(name);
      const podEnv = () => podEnvOf(name);

      it('sets only variables the configuration reads, and the configuration loads from them', () => {
        const names = (container().env as Doc[]).map((e) => e.name as string);
        expect(names.filter((n) => !settingNames().includes(n))).toEqual([]);
        expect(new Set(names).size).toBe(names.length);
        const { config, unknown } = configFrom(podEnv());
        expect(unknown).toEqual([]);
        expect(config.databaseUrl).toMatch(/^postgres:\/\//);
        expect(config.hostId).toBe(podName);
      });

      it('takes every secret reference from a key the Secret defines', () => {
        const refs = (container().env as Doc[]).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.valueFrom.secretKeyRef as { name: string; key: string });
        expect(refs.map((r) => r.key).sort()).toEqual(['admin-password', 'database-url', 'encryption-key', 'jwt-secret']);
        for (const ref of refs) {
          expect(ref.name).toBe(secret().metadata.name);
          expect(Object.keys(secretValues())).toContain(ref.key);
        }
      });

      it('listens where the configuration says, and probes operations of the API on that port', () => {
        const { config } = configFrom(podEnv());
        const ports = container().ports as Doc[];
        expect(ports.map((p) => p.containerPort)).toEqual([config.port]);
        const portNamed = (port: string | number) => (typeof port === 'number' ? port : ports.find((p) => p.name === port)?.containerPort);
        const probes = { startupProbe: '/v2/health/live', livenessProbe: '/v2/health/live', readinessProbe: '/v2/health/ready' };
        for (const [probe, path] of Object.entries(probes)) {
          const get = container()[probe]?.httpGet;
          expect(get, probe).toBeDefined();
          expect(get.path, probe).toBe(path);
          expect(isGetOperation(get.path), `${probe} ${get.path} is an operation`).toBe(true);
          expect(portNamed(get.port), probe).toBe(config.port);
        }
        // Liveness must not hang on the database (health_live answers without it); startup must outlast migrations.
        const startup = container().startupProbe;
        expect(startup.periodSeconds * startup.failureThreshold).toBeGreaterThanOrEqual(300);
        const annotations = deployment().spec.template.metadata.annotations;
        expect(annotations['prometheus.io/path']).toBe('/metrics');
        expect(Number(annotations['prometheus.io/port'])).toBe(config.port);
      });

      it('gives Vigil longer than its own shutdown deadline to stop', () => {
        const { config } = configFrom(podEnv());
        const preStop = container().lifecycle?.preStop?.exec?.command as string[] | undefined;
        const preStopSeconds = preStop?.[0] === 'sleep' ? Number(preStop[1]) : 0;
        expect(deployment().spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(preStopSeconds + config.shutdownTimeoutMs / 1000);
      });

      it("runs as the image's user with a read-only root, every path Vigil writes mounted", () => {
        const pod = deployment().spec.template.spec;
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: image.uid, runAsGroup: image.uid, fsGroup: image.uid });
        expect(container().securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
        const { config } = configFrom(podEnv());
        const mounts = (container().volumeMounts as Doc[]).map((m) => m.mountPath as string);
        // The data directory (uploads, feed downloads, encryption.key when no key is set) and the temporary
        // directory (gzip-compressed archives unpacked for analysis, src/images/sources/archive-files.ts).
        expect(mounts).toContain(config.dataDir);
        expect(mounts).toContain('/tmp'); // os.tmpdir() in the image: TMPDIR is not set
        const volumes = (pod.volumes as Doc[]).map((v) => v.name);
        for (const m of container().volumeMounts as Doc[]) expect(volumes).toContain(m.name);
      });

    });
  }

  it('keeps Kubernetes service links out of the VIGIL_ namespace', () => {
    // A Service named vigil makes the kubelet set VIGIL_PORT=tcp://..., VIGIL_SERVICE_HOST, ... in every pod of
    // the namespace unless service links are off; VIGIL_PORT would stop start-up.
    const collides = byKind('Service').some((s) => `${s.metadata.name.toUpperCase().replace(/-/g, '_')}_`.startsWith('VIGIL_'));
    if (collides) for (const d of byKind('Deployment')) expect(d.spec.template.spec.enableServiceLinks, d.metadata.name).toBe(false);
  });

  it('routes the Service and the disruption budget to the API Deployment’s pods, not the workers’', () => {
    const deployment = () => deploymentNamed('vigil');
    const container = () => containerOf('vigil');
    const labels = deployment().spec.template.metadata.labels;
    expect(labels).toMatchObject(deployment().spec.selector.matchLabels);
    const workerLabels = deploymentNamed('vigil-worker').spec.template.metadata.labels;
    expect(workerLabels).not.toMatchObject(one('Service').spec.selector);
    expect(workerLabels).not.toMatchObject(one('PodDisruptionBudget').spec.selector.matchLabels);
    const service = one('Service');
    expect(labels).toMatchObject(service.spec.selector);
    const portNames = (container().ports as Doc[]).map((p) => p.name);
    for (const p of service.spec.ports as Doc[]) expect(portNames).toContain(p.targetPort);
    expect(labels).toMatchObject(one('PodDisruptionBudget').spec.selector.matchLabels);
    expect(one('PodDisruptionBudget').spec.minAvailable).toBeLessThan(deployment().spec.replicas);
    expect(kustomization.images.map((i: Doc) => i.name)).toContain(container().image);
  });
});

describe('deploy/compose.yaml', () => {
  const compose = yaml.load(read('deploy/compose.yaml')) as Doc;
  const exampleEnv = Object.fromEntries(
    read('deploy/compose.env.example')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

  /** Compose's variable substitution: ${NAME}, ${NAME:-default}, ${NAME:?error}, $$. */
  const interpolate = (value: string, vars: Record<string, string>): string =>
    value.replace(/\$\$|\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (whole, name: string | undefined, op: string | undefined, arg: string) => {
      if (!name) return '$';
      const v = vars[name];
      if (v !== undefined && v !== '') return v;
      if (op === '?') throw new Error(`${name}: ${arg}`);
      return op === '-' ? arg : '';
    });

  const vigilNodes = () => Object.entries(compose.services as Record<string, Doc>).filter(([, s]) => s.image === 'localhost/vigil:latest');
  const nodeEnv = (service: Doc, vars = exampleEnv): Record<string, string> => {
    const env: Record<string, string> = { ...image.env };
    for (const [k, v] of Object.entries(service.environment as Record<string, string>)) env[k] = interpolate(String(v), vars);
    return env;
  };

  it('runs two Vigil nodes from the Containerfile after Postgres 15 is healthy', () => {
    const nodes = vigilNodes();
    expect(nodes.map(([name]) => name)).toEqual(['vigil-api', 'vigil-worker']);
    expect(compose.services.postgres.image).toMatch(/postgres:15/);
    expect(compose.services.postgres.healthcheck.test[0]).toBe('CMD');
    const built = nodes.filter(([, s]) => s.build);
    expect(built).toHaveLength(1);
    expect(resolve(deployDir, built[0][1].build.context, built[0][1].build.dockerfile)).toBe(join(root, 'Containerfile'));
    for (const [name, s] of nodes) expect(s.depends_on.postgres, name).toEqual({ condition: 'service_healthy' });
  });

  it('sets only Vigil settings, the same secrets on every node, a distinct host id each, and the configuration loads', () => {
    const envs = vigilNodes().map(([, s]) => nodeEnv(s));
    for (const [name, s] of vigilNodes()) expect(Object.keys(s.environment).filter((n) => !settingNames().includes(n)), name).toEqual([]);
    for (const env of envs) expect(configFrom(env).unknown).toEqual([]);
    const configs = envs.map((env) => configFrom(env).config);
    for (const key of ['databaseUrl', 'encryptionKey'] as const) expect(new Set(configs.map((c) => c[key])).size, key).toBe(1);
    expect(new Set(configs.map((c) => c.jwt.secret)).size).toBe(1);
    expect(configs[0].jwt.secret).toBeTruthy();
    expect(configs[0].encryptionKey).toBeTruthy();
    expect(new Set(configs.map((c) => c.hostId)).size).toBe(configs.length);
    // No VIGIL_ variable on any other service (the prefix belongs to Vigil's settings).
    for (const [name, s] of Object.entries(compose.services as Record<string, Doc>)) {
      if (s.image === 'localhost/vigil:latest') continue;
      expect(Object.keys(s.environment ?? {}).filter((n) => n.startsWith('VIGIL_')), name).toEqual([]);
    }
  });

  it('splits the roles: an API node and a worker, together holding every role once', () => {
    const roles = Object.fromEntries(vigilNodes().map(([name, s]) => [name, configFrom(nodeEnv(s)).config.roles]));
    expect(roles).toEqual({ 'vigil-api': ['api'], 'vigil-worker': ['analyzer', 'feeds', 'reports', 'notifications', 'scheduler'] });
  });

  it('refuses to start while a secret is missing', () => {
    const [, node] = vigilNodes()[0];
    for (const secretName of ['DATABASE_ROLE_PASSWORD', 'VIGIL_ENCRYPTION_KEY', 'VIGIL_JWT_SECRET', 'VIGIL_ADMIN_PASSWORD']) {
      expect(() => nodeEnv(node, { ...exampleEnv, [secretName]: '' }), secretName).toThrow(secretName);
    }
  });

  it('health-checks an operation of the API on the configured port, and waits longer than the shutdown deadline', () => {
    for (const [name, s] of vigilNodes()) {
      const { config } = configFrom(nodeEnv(s));
      const url = new URL(/fetch\('([^']+)'\)/.exec(s.healthcheck.test.join(' '))![1]);
      expect(url.pathname, name).toBe('/v2/health/ready');
      expect(url.pathname).toBe(image.healthcheckPath);
      expect(isGetOperation(url.pathname), `${url.pathname} is an operation`).toBe(true);
      expect(Number(url.port)).toBe(config.port);
      expect(s.ports.map((p: string) => Number(p.split(':').pop()))).toEqual([config.port]);
      expect(Number(/^(\d+)s$/.exec(s.stop_grace_period)![1])).toBeGreaterThan(config.shutdownTimeoutMs / 1000);
    }
  });

  it('gives each node its own data volume, mounted at the data directory', () => {
    const volumes = vigilNodes().map(([name, s]) => {
      const { config } = configFrom(nodeEnv(s));
      const mounts = (s.volumes as string[]).map((v) => v.split(':'));
      const data = mounts.find(([, target]) => target === config.dataDir);
      expect(data, name).toBeDefined();
      expect(Object.keys(compose.volumes)).toContain(data![0]);
      return data![0];
    });
    expect(new Set(volumes).size).toBe(volumes.length);
  });

  it.skipIf(missingTools('docker-compose'))(`is a valid compose file for docker-compose${missingTools('docker-compose') ? ` (${installHint(['docker-compose'])})` : ''}`, () => {
    const run = spawnSync(requireTool('docker-compose'), ['--file', join(deployDir, 'compose.yaml'), '--env-file', join(deployDir, 'compose.env.example'), 'config', '--quiet'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  });
});

describe('deploy/prometheus/alerts.yaml', () => {
  const rules = yaml.load(read('deploy/prometheus/alerts.yaml')) as { groups: Array<{ name: string; rules: Array<{ alert: string; expr: string }> }> };
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-deploy-test-'));
  const db = createDb({ databaseUrl: null, dataDir });
  afterAll(async () => {
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('uses only metrics Vigil exports', () => {
    // The registry a node serves at /metrics; listing its metrics does not query the database.
    const exported = new Map(new PrometheusMetrics(db).registry.getMetricsAsArray().map((m) => [m.name, (m as unknown as { type: string }).type]));
    const used = new Set(rules.groups.flatMap((g) => g.rules.flatMap((r) => [...r.expr.matchAll(/\bvigil_[a-z0-9_]+/g)].map((m) => m[0]))));
    expect(used.size).toBeGreaterThan(5);
    for (const name of used) {
      const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
      const known = exported.has(name) || (histogram !== null && exported.get(histogram[1]) === 'histogram');
      expect(known, `${name} is a metric of GET /metrics`).toBe(true);
    }
  });

  it.skipIf(missingTools('promtool'))(`passes promtool check rules${missingTools('promtool') ? ` (${installHint(['promtool'])})` : ''}`, () => {
    const run = spawnSync(requireTool('promtool'), ['check', 'rules', join(deployDir, 'prometheus/alerts.yaml')], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/SUCCESS: \d+ rules found/);
    expect(run.status).toBe(0);
  });

  it.skipIf(missingTools('promtool'))(`fires on the series it is meant for (promtool test rules)${missingTools('promtool') ? ` (${installHint(['promtool'])})` : ''}`, () => {
    const run = spawnSync(requireTool('promtool'), ['test', 'rules', 'alerts.test.yaml'], { cwd: join(deployDir, 'prometheus'), encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toMatch(/SUCCESS/);
    expect(run.status).toBe(0);
  });
});

describe('docs/operations.md', () => {
  it('shows the statements deploy/postgres/create-vigil-database.sh runs', () => {
    // The script's SQL with its psql variables as the document's example names them.
    const script = /<<'SQL'\n([\s\S]*?)\nSQL\n/.exec(read('deploy/postgres/create-vigil-database.sh'))![1];
    const statements = (sql: string) =>
      sql
        .split('\n')
        .map((l) => l.replace(/\s+--.*$/, '').trim())
        .filter((l) => l && !l.startsWith('--'));
    const fromScript = statements(script.replace(/:"(role|database)"/g, 'vigil').replace(/:'password'/g, "'...'"));
    const doc = /## PostgreSQL[\s\S]*?```sql\n([\s\S]*?)```/.exec(read('docs/operations.md'))![1];
    expect(statements(doc)).toEqual(fromScript);
  });
});

describe.skipIf(missingTools('yamllint'))(`deploy/ YAML style${missingTools('yamllint') ? ` (${installHint(['yamllint'])})` : ''}`, () => {
  it('passes yamllint with the repository configuration', () => {
    const run = spawnSync(requireTool('yamllint'), ['--strict', '--config-file', join(deployDir, '.yamllint.yaml'), deployDir], { encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  });
});
