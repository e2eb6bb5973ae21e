/**
 * The service's long-lived parts, built once at start-up and shared by the HTTP layer and (later) workers.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { authzActions } from '../generated/operations.js';
import { ADMIN_ACCOUNT } from './auth/accounts.js';
import { Authenticator } from './auth/authenticate.js';
import { bootstrapAdmin } from './auth/bootstrap.js';
import { PasswordHasher } from './auth/passwords.js';
import { PermissionCatalog, seedBuiltinRoles } from './auth/rbac.js';
import { LoginThrottle } from './auth/throttle.js';
import { TokenService } from './auth/tokens.js';
import type { Config } from './config.js';
import { createDb, type Db } from './db/index.js';
import { JobQueue } from './jobs/queue.js';
import { JobWorker } from './jobs/worker.js';
import type { SecretBox } from './util/secret-box.js';
import { openSecretBox } from './system/encryption-key.js';
import type { FeedSyncProgress } from './vulns/feeds.js';
import { packageVersion } from './util/project.js';
import { PageTokens } from './reports/paging.js';
import { ReportRefresher } from './reports/refresher.js';
import { MetricsScheduler } from './reports/metrics/scheduler.js';
import { REPORT_ACTIONS } from './reports/actions.js';
import { executeStoredQuery } from './reports/scheduled/execute.js';
import { ScheduledQueryScheduler } from './reports/scheduled/scheduler.js';
import { NotificationDispatcher } from './notifications/dispatcher.js';
import { queueNotificationsForEvents } from './notifications/outbox.js';
import { raiseAlertsOnEvaluations } from './alerts/evaluation-alerts.js';
import { OutboundPolicy } from './outbound/policy.js';
import type { DeliveryOptions } from './notifications/types.js';
import { migrateAndRecord } from './system/deployments.js';
import { OidcRelyingParty } from './auth/oidc/relying-party.js';
import { nodeServiceNames, ServiceRegistry } from './system/services.js';
import { PrometheusMetrics } from './system/prometheus.js';
import { defaultValues } from './settings/catalog.js';
import { NodeLogLevel } from './settings/log-level.js';
import { RuntimeSettings } from './settings/runtime.js';

export interface Services {
  config: Config;
  db: Db;
  log: Logger;
  hasher: PasswordHasher;
  tokens: TokenService;
  authenticator: Authenticator;
  permissions: PermissionCatalog;
  secretBox: SecretBox;
  jobs: JobQueue;
  worker: JobWorker;
  version: string;
  /** This node's host id (VIGIL_HOST_ID, default the host name). */
  hostId: string;
  /** Unique to this process among every node's processes, past and present. */
  instanceId: string;
  startedAt: string;
  /** This node's service registrations and their heartbeat (GET /v2/system/services). */
  registry: ServiceRegistry;
  /** Where the process is in its life, for the readiness probe: every part started, or shutting down. */
  lifecycle: { started: boolean; stopping: boolean };
  /** This process's Prometheus metrics (GET /metrics). */
  prometheus: PrometheusMetrics;
  /** The runtime settings in force (src/settings/): read on each use, so a change counts on every node. */
  settings: RuntimeSettings;
  /** This node's logger level following the log_level setting. */
  nodeLogLevel: NodeLogLevel;
  /** What this process's feed sync is doing, for the feeds listing. */
  feedProgress: FeedSyncProgress;
  reports: {
    /** Signs and checks the keyset page tokens of report queries. */
    tokens: PageTokens;
    refresher: ReportRefresher;
    /** Metrics collections (the schedule is a periodic job, src/jobs/registry.ts); `collectNow()` collects at once. */
    metrics: MetricsScheduler;
    /** Runs scheduled queries: due runs (a periodic job looks for them), and manual runs at any time. */
    scheduler: ScheduledQueryScheduler;
  };
  /**
   * The outbound policy of each kind of traffic (src/outbound/): which internal addresses it may reach
   * (VIGIL_OUTBOUND_ALLOW; for registries VIGIL_REGISTRY_ALLOW too), and where refusals are logged.
   */
  outbound: { registry: OutboundPolicy; feeds: OutboundPolicy; notifications: OutboundPolicy; identity: OutboundPolicy };
  /** OpenID Connect relying party: discovery, code and device exchanges, ID token keys (kept per process). */
  oidc: OidcRelyingParty;
  notifications: {
    /** Delivers queued notifications (passes of a periodic job); `wake()` makes a pass due at once. */
    dispatcher: NotificationDispatcher;
    /** Outbound policy (VIGIL_OUTBOUND_ALLOW) and limits every delivery and test send uses. */
    delivery: DeliveryOptions;
  };
}


export async function createServices(config: Config, log: Logger): Promise<Services> {
  const db = createDb(config);
  try {
    await migrateAndRecord(db, packageVersion);
    await seedBuiltinRoles(db, [...new Set([...authzActions, ...REPORT_ACTIONS])]);
    const hasher = new PasswordHasher({ ...config.argon2, cacheSeconds: config.auth.passwordCacheSeconds });
    const tokens = await TokenService.create(db, config);
    const throttle = new LoginThrottle(config.auth);
    const authenticator = new Authenticator(db, hasher, tokens, throttle);
    const bootstrap = await bootstrapAdmin(db, hasher, config.adminPassword);
    if (bootstrap.created) {
      if (bootstrap.generatedPassword)
        log.warn(
          { account: ADMIN_ACCOUNT, username: bootstrap.username },
          `created administrator '${bootstrap.username}' with generated password: ${bootstrap.generatedPassword} (shown once; set VIGIL_ADMIN_PASSWORD to choose it)`,
        );
      else log.info({ account: ADMIN_ACCOUNT, username: bootstrap.username }, `created administrator '${bootstrap.username}' with the password from VIGIL_ADMIN_PASSWORD`);
    }
    const permissions = await PermissionCatalog.load(db);
    const secretBox = await openSecretBox(db, config);
    // Composition: every event recorded in this process queues the notifications its selectors match.
    queueNotificationsForEvents();
    // Composition: every policy evaluation stored in this process may open or close a compliance-violation alert.
    raiseAlertsOnEvaluations();
    const jobs = new JobQueue(db);
    const settings = new RuntimeSettings(db, defaultValues(config));
    const worker = new JobWorker(jobs, log.child({ component: 'worker' }), { ...config.worker, nodeId: config.hostId });
    const outboundLog = log.child({ component: 'outbound' });
    const outbound = {
      registry: OutboundPolicy.parse([config.outbound.allow, config.outbound.registryAllow], { purpose: 'registry', log: outboundLog }),
      feeds: OutboundPolicy.parse(config.outbound.allow, { purpose: 'feeds', log: outboundLog }),
      notifications: OutboundPolicy.parse(config.outbound.allow, { purpose: 'notifications', log: outboundLog }),
      // SAML identity provider metadata fetched by URL; OpenID Connect discovery, keys and token exchanges.
      identity: OutboundPolicy.parse(config.outbound.allow, { purpose: 'identity', log: outboundLog }),
    };
    const delivery: DeliveryOptions = {
      policy: outbound.notifications,
      maxResponseBytes: config.notifications.maxResponseBytes,
      userAgent: `Vigil/${packageVersion}`,
    };
    const services: Services = {
      config,
      db,
      log,
      hasher,
      tokens,
      authenticator,
      permissions,
      secretBox,
      jobs,
      worker,
      version: packageVersion,
      hostId: config.hostId,
      instanceId: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      startedAt: new Date().toISOString(),
      registry: new ServiceRegistry(db, log.child({ component: 'registry' }), nodeServiceNames(config), {
        busy: (name) => name === 'analyzer' && worker.busy,
        loggingLevel: () => log.level,
        beforeBeat: () => services.nodeLogLevel.sync(),
      }),
      lifecycle: { started: false, stopping: false },
      prometheus: new PrometheusMetrics(db),
      settings,
      nodeLogLevel: new NodeLogLevel(log, settings, config.logLevel),
      feedProgress: { running: false },
      reports: {
        tokens: new PageTokens(secretBox.deriveKey('report-page-tokens')),
        refresher: new ReportRefresher(db, log.child({ component: 'reports' }), `${hostname()}:${process.pid}`),
        metrics: new MetricsScheduler(db, log.child({ component: 'metrics' }), {
          schedule: config.reports.metricsSchedule,
          retentionDays: config.reports.metricsRetentionDays,
        }),
        // A run is a report request in its owner's scope and needs the whole bundle, hence the closure over it.
        scheduler: new ScheduledQueryScheduler({
          db,
          log: log.child({ component: 'scheduled-queries' }),
          jobs,
          worker,
          run: (query, execution) => executeStoredQuery(services, query, execution),
          scheduling: config.reports.scheduler,
        }),
      },
      outbound,
      oidc: new OidcRelyingParty({ policy: outbound.identity, userAgent: `Vigil/${packageVersion}`, jwksCooldownSeconds: config.oidc.jwksCooldownSeconds }),
      notifications: {
        dispatcher: new NotificationDispatcher(db, log.child({ component: 'notifications' }), secretBox, config.notifications, delivery, { jobs, wakeWorker: () => worker.wake() }, { nodeId: config.hostId }),
        delivery,
      },
    };
    await services.nodeLogLevel.sync();
    return services;
  } catch (err) {
    await db.destroy();
    throw err;
  }
}
