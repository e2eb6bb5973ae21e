/**
 * The log_level runtime setting on this node. Each node applies the setting itself (its logger is its own): at
 * start, on the change it takes, and at each service heartbeat for changes made through other nodes. Only a change
 * of the setting is applied, so a level set on one node by POST /v2/system/logging holds until the setting changes.
 */
import type { Logger } from 'pino';
import type { RuntimeSettings } from './runtime.js';

export class NodeLogLevel {
  private applied: string;

  constructor(
    private readonly log: Logger,
    private readonly settings: RuntimeSettings,
    startLevel: string,
  ) {
    this.applied = startLevel;
  }

  async sync(): Promise<void> {
    const level = await this.settings.get('log_level');
    if (level === this.applied) return;
    const previous = this.log.level;
    this.log.level = level;
    this.applied = level;
    this.log.child({}, { level: 'info' }).info({ previous, level }, `logging level set to ${level} by the log_level setting (was ${previous})`);
  }
}
