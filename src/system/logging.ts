/**
 * The logging level of the running process (upstream's set_new_log_level). Every service role of a Vigil node
 * runs in one process that logs through one pino logger, so a change for one of the node's services applies to
 * all of them, on this node only, until it restarts (VIGIL_LOG_LEVEL again). Upstream's level names (DEBUG,
 * WARNING, CRITICAL, SPEW, ...) are accepted alongside pino's.
 */
import type { Level, Logger } from 'pino';
import { InvalidError, NotFoundError } from '../errors.js';
import { isServiceName, SERVICE_ROLES, type ServiceName, type ServiceRegistry } from './services.js';

const LEVELS: Record<string, Level> = {
  fatal: 'fatal',
  critical: 'fatal',
  error: 'error',
  warn: 'warn',
  warning: 'warn',
  info: 'info',
  debug: 'debug',
  trace: 'trace',
  spew: 'trace',
};

export interface LoggingLevel {
  service_name: string;
  logging_level: string;
}

export function parseLoggingLevel(value: string): Level {
  const level = LEVELS[value.trim().toLowerCase()];
  if (!level)
    throw new InvalidError(`logging_level '${value}' is not a level; use one of ${Object.keys(LEVELS).map((l) => l.toUpperCase()).join(', ')}`, {
      errors: [{ location: 'body.logging_level', message: 'is not a logging level' }],
    });
  return level;
}

/** The logging level of each of this node's services. */
export function loggingLevels(log: Logger, names: readonly ServiceName[]): LoggingLevel[] {
  return names.map((service_name) => ({ service_name, logging_level: log.level.toUpperCase() }));
}

/**
 * Sets the process's logging level on behalf of one of this node's services; answers every service of the node
 * (they share it). The change is logged whatever the new level, and published with the registrations at once.
 */
export async function setLoggingLevel(
  log: Logger,
  registry: ServiceRegistry,
  request: LoggingLevel,
  changedBy: string,
): Promise<LoggingLevel[]> {
  if (!isServiceName(request.service_name))
    throw new InvalidError(`service_name '${request.service_name}' is not a Vigil service; use one of ${Object.keys(SERVICE_ROLES).join(', ')}`, {
      errors: [{ location: 'body.service_name', message: 'is not a service name' }],
    });
  if (!registry.names.includes(request.service_name))
    throw new NotFoundError(`this node does not run the ${request.service_name} service; it runs ${registry.names.join(', ')}`, {
      service_name: request.service_name,
    });
  const level = parseLoggingLevel(request.logging_level);
  const previous = log.level;
  log.level = level;
  log.child({}, { level: 'info' }).info({ previous, level, service_name: request.service_name, changed_by: changedBy }, `logging level set to ${level} (was ${previous})`);
  await registry.beat().catch((err) => log.warn({ err }, 'could not publish the logging level with the service registrations'));
  return loggingLevels(log, registry.names);
}
