/** Entry point: `npm start`. Configuration comes from VIGIL_* environment variables (docs/configuration.md). */
import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { startServer } from './server/start.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`vigil: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const log = pino({ level: config.logLevel, base: { service: 'vigil' } });
  const running = await startServer(config, log);
  const storage = config.databaseUrl ? 'Postgres' : `SQLite at ${config.dataDir}/vigil.sqlite`;
  log.info({ url: running.url, storage }, `Vigil ${running.services.version} listening on ${running.url} (storage: ${storage})`);
  log.info(
    `log in as user 'admin' with the password from VIGIL_ADMIN_PASSWORD (or the one generated at first start), e.g. ` +
      `curl -u admin:PASSWORD ${running.url}/v2/account ; API docs at ${running.url}/v2/docs/`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    running.close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  console.error('vigil: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
