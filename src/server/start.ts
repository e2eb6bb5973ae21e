/** Starts the HTTP(S) server over the services, and stops it gracefully. */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { bodyChecks, handlers } from '../api/index.js';
import type { Config } from '../config.js';
import type { NodeRole } from '../system/node-roles.js';
import { registerJobs } from '../jobs/registry.js';
import { closeIdleConnections } from '../outbound/http.js';
import { schemaVersion } from '../db/index.js';
import { createServices, type Services } from '../service.js';
import { requestFeedSync } from '../vulns/feeds.js';
import { createApp } from './app.js';

export interface RunningServer {
  services: Services;
  server: http.Server;
  /** Base URL clients use, e.g. http://127.0.0.1:8228 */
  url: string;
  /** Stop accepting, let in-flight requests finish (up to the shutdown timeout), close the database. */
  close(): Promise<void>;
}

export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const services = await createServices(config, log);
  registerJobs(services);
  const app = await createApp(services, handlers, bodyChecks);
  const server = config.tls
    ? https.createServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, app)
    : http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  services.prometheus.watch({ worker: services.worker, dispatcher: services.notifications.dispatcher, refresher: services.reports.refresher });
  const stopLoops = await startRoles(services);
  const { port } = server.address() as AddressInfo;
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const scheme = config.tls ? 'https' : 'http';
  const shownHost = wildcard ? '127.0.0.1' : config.host;
  const url = `${scheme}://${shownHost}:${port}`;
  // What other nodes and clients are told: the host's name when listening on every address.
  const advertised = wildcard ? hostname() : config.host.includes(':') ? `[${config.host}]` : config.host;
  await services.registry.start({
    hostId: services.hostId,
    instanceId: services.instanceId,
    baseUrl: `${scheme}://${advertised}:${port}`,
    version: services.version,
    dbVersion: await schemaVersion(services.db),
    startedAt: services.startedAt,
    heartbeatSeconds: config.heartbeatSeconds,
    roles: config.roles,
  });

  services.lifecycle.started = true;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      // In-flight requests and keep-alive connections that ask the readiness probe now hear 503.
      services.lifecycle.stopping = true;
      const serverClosed = new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      // Running jobs get half the shutdown time to finish; the rest are aborted and go back to the queue within the
      // other half, before main.ts exits at the deadline.
      const drained = services.worker.drain(Math.floor(config.shutdownTimeoutMs / 2));
      await Promise.all([serverClosed, drained]);
      // Other nodes see this one as stopped at once, not only once its heartbeat goes stale.
      await services.registry.stop().catch((err) => services.log.warn({ err }, 'could not mark the service registrations stopped'));
      await stopLoops();
      for (const policy of Object.values(services.outbound)) closeIdleConnections(policy);
      await services.db.destroy();
    })());
  return { services, server, url, close };
}

/**
 * Starts what this node's roles run (docs/architecture.md, "Process roles") and answers how to stop it. All
 * background work, time-driven work included, is jobs that the worker claims (jobs/registry.ts registers the kinds
 * of this node's roles). The worker starts on every node, so jobs this node's earlier process left running are
 * released; every node makes notification delivery due when it queues notifications.
 */
async function startRoles(services: Services): Promise<() => Promise<void>> {
  const { config } = services;
  const has = (role: NodeRole) => config.roles.includes(role);
  const { dispatcher } = services.notifications;
  dispatcher.listen();
  if (has('notifications') && config.notifications.dispatcher) await dispatcher.releaseAbandoned();
  await services.worker.start();
  // Queued once however many scheduler nodes start together: a waiting sync of all sources absorbs the others.
  if (has('scheduler') && config.feeds.syncOnStart && config.feeds.sources.length > 0)
    await requestFeedSync(services, { trigger: 'startup' }).catch((err) => services.log.error({ err }, 'could not queue a feed sync'));
  return async () => {
    dispatcher.unlisten();
    await dispatcher.settled();
    // In-process work the worker does not own: on-demand refreshes and collections a request started.
    await services.reports.refresher.stop();
    await services.reports.metrics.stop();
    dispatcher.close();
  };
}
