/** trigger_id formats: what allowlist items name a finding by (the reference's conventions, so allowlists carry over). */
import { createHash } from 'node:crypto';

/** The default id: md5 of gate name, trigger name and the finding's message, lower-case hex. */
export function defaultTriggerId(gate: string, trigger: string, message: string): string {
  return createHash('md5').update(`${gate}${trigger}${message}`).digest('hex');
}
