/** Starts the HTTP(S) server over the services, and stops it gracefully. */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { bodyChecks, handlers } from '../api/index.js';
import type { Config } from '../config.js';
import { startWatchScheduler } from '../images/watch.js';
import { startInventoryExpiry } from '../inventory/expiry.js';
import { registerJobs } from '../jobs/registry.js';
import { closeIdleConnections } from '../outbound/http.js';
import { schemaVersion } from '../db/index.js';
import { createServices, type Services } from '../service.js';
import { startFeedScheduler } from '../vulns/feeds.js';
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
  await services.worker.start();
  const stopWatching = config.watchIntervalSeconds > 0 ? startWatchScheduler(services, config.watchIntervalSeconds) : () => {};
  const stopFeedSchedule = startFeedScheduler(services);
  const stopInventoryExpiry = startInventoryExpiry(services);
  services.reports.refresher.start();
  if (config.reports.scheduler) services.reports.scheduler.start();
  services.reports.metrics.start();
  if (config.notifications.dispatcher) await services.notifications.dispatcher.start();
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
  });

  services.lifecycle.started = true;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      // In-flight requests and keep-alive connections that ask the readiness probe now hear 503.
      services.lifecycle.stopping = true;
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      // Other nodes see this one as stopped at once, not only once its heartbeat goes stale.
      await services.registry.stop().catch((err) => services.log.warn({ err }, 'could not mark the service registrations stopped'));
      stopWatching();
      stopFeedSchedule();
      stopInventoryExpiry();
      await services.reports.refresher.stop();
      await services.reports.scheduler.stop();
      await services.reports.metrics.stop();
      // Tries in progress finish (each within its timeout); queued notifications wait for the next start.
      await services.notifications.dispatcher.stop();
      // Running analyses are interrupted, not lost: their jobs stay claimed and resume at the next start.
      await services.worker.stop();
      for (const policy of Object.values(services.outbound)) closeIdleConnections(policy);
      await services.db.destroy();
    })());
  return { services, server, url, close };
}
