/**
 * The service's long-lived parts, built once at start-up and shared by the HTTP layer and (later) workers.
 */
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
import { createDb, migrateToLatest, type Db } from './db/index.js';
import { JobQueue } from './jobs/queue.js';
import { JobWorker } from './jobs/worker.js';
import { SecretBox } from './util/secret-box.js';
import type { FeedSyncProgress } from './vulns/feeds.js';
import { packageVersion } from './util/project.js';
import { PageTokens } from './reports/paging.js';
import { ReportRefresher } from './reports/refresher.js';
import { REPORT_ACTIONS } from './reports/actions.js';

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
  hostId: string;
  startedAt: string;
  /** What this process's feed sync is doing, for the feeds listing. */
  feedProgress: FeedSyncProgress;
  reports: {
    /** Signs and checks the keyset page tokens of report queries. */
    tokens: PageTokens;
    refresher: ReportRefresher;
  };
}


export async function createServices(config: Config, log: Logger): Promise<Services> {
  const db = createDb(config);
  try {
    await migrateToLatest(db);
    await seedBuiltinRoles(db, [...authzActions, ...REPORT_ACTIONS]);
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
    const secretBox = SecretBox.fromConfig(config.encryptionKey, config.dataDir);
    const jobs = new JobQueue(db);
    const worker = new JobWorker(jobs, log.child({ component: 'worker' }), config.worker);
    return {
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
      hostId: hostname(),
      startedAt: new Date().toISOString(),
      feedProgress: { running: false },
      reports: {
        tokens: new PageTokens(secretBox.deriveKey('report-page-tokens')),
        refresher: new ReportRefresher(db, log.child({ component: 'reports' }), `${hostname()}:${process.pid}`, config.reports.refreshIntervalSeconds * 1000),
      },
    };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}
