/** `vigil sbom scan FILE`: the one-time scan of an SBOM (nothing stored). */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../exit-codes.js';
import type { Session } from '../session.js';
import { showFindings } from '../vulnerabilities.js';

export function registerSbom(program: Command, session: Session): void {
  const sbom = program.command('sbom').description('SBOM documents');
  sbom
    .command('scan')
    .description('match an SBOM (syft JSON, CycloneDX JSON or SPDX JSON) against the feeds; nothing is stored')
    .argument('<file>', 'the SBOM ("-" for stdin)')
    .option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity')
    .option('--kev', 'only known-exploited findings (CISA KEV), for the list and for --fail-on')
    .action(async (file: string, opts: { failOn?: string; kev?: boolean }, cmd: Command) => {
      const text = readFileSync(file === '-' ? 0 : file, 'utf8');
      let document: Record<string, unknown>;
      try {
        document = JSON.parse(text);
      } catch (err) {
        throw new CliError(`error: ${file} is not JSON: ${(err as Error).message}`);
      }
      if (!document || typeof document !== 'object' || Array.isArray(document)) throw new CliError(`error: ${file} is not an SBOM document (a JSON object)`);
      const { client, call } = await session.api(cmd);
      const answer = await call(client.POST('/vulnerability-scan', { body: document }));
      showFindings(session, cmd, answer, opts);
    });
}
