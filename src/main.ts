/** Entry point: `npm start`. Configuration comes from VIGIL_* environment variables (docs/configuration.md). */
import { pino } from 'pino';
import { ConfigError, loadConfig, unknownSettingMessage, unknownSettings } from './config.js';
import { startServer } from './server/start.js';
import { formatLogLine } from './util/log-format.js';
import { LogSink } from './util/log-sink.js';

/** Exit status when a shutdown did not finish within VIGIL_SHUTDOWN_TIMEOUT_MS and the process stopped anyway. */
const EXIT_SHUTDOWN_FORCED = 3;

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
  // Readable lines for a person at a terminal, JSON for everything else (a file, a pipe, a log shipper).
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true);
  const color = pretty && process.stdout.isTTY === true && !process.env['NO_COLOR'];
  const logSink = new LogSink(process.stdout, undefined, pretty ? (line) => formatLogLine(line, { color }) : undefined);
  const log = pino({ level: config.logLevel, base: { service: 'vigil' } }, logSink);
  // A misspelt variable would otherwise leave its setting at the default without a word.
  for (const unknown of unknownSettings()) log.warn({ variable: unknown.variable, did_you_mean: unknown.closest }, unknownSettingMessage(unknown));
  // Signals are handled from the start: a node still registering itself (after it began listening) stops as
  // soon as it has started, within the same deadline, instead of dying mid-start on the default action.
  const starting = startServer(config, log);
  const { shutdownTimeoutMs } = config;
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  let stopping = false;
  function stop(signal: string): void {
    if (stopping) return;
    stopping = true;
    let exitCode: number | null = null;
    // The deadline holds whatever is still running then: a request, a stopping job or delivery, log lines a reader
    // is not taking. A shutdown that finished exits with its own status; one that did not, with 3.
    setTimeout(() => {
      if (exitCode === null) log.warn({ timeout_ms: shutdownTimeoutMs }, 'shutdown did not finish within VIGIL_SHUTDOWN_TIMEOUT_MS; exiting');
      process.exit(exitCode ?? EXIT_SHUTDOWN_FORCED);
    }, shutdownTimeoutMs);
    log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const exit = async (code: number) => {
      exitCode = code;
      await logSink.drained();
      process.exit(code);
    };
    starting
      .then((running) => running.close())
      .then(
        () => {
          log.info('stopped');
          return exit(0);
        },
        (err) => {
          log.error({ err }, 'error during shutdown');
          return exit(1);
        },
      );
  }

  const running = await starting;
  const storage = config.databaseUrl ? 'Postgres' : `SQLite at ${config.dataDir}/vigil.sqlite`;
  log.info({ url: running.url, storage }, `Vigil ${running.services.version} listening on ${running.url} (storage: ${storage})`);
  log.info(
    `log in as user 'admin' with the password from VIGIL_ADMIN_PASSWORD (or the one generated at first start), e.g. ` +
      `curl -u admin:PASSWORD ${running.url}/v2/account ; API docs at ${running.url}/v2/docs/`,
  );
}

main().catch((err) => {
  console.error('vigil: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
