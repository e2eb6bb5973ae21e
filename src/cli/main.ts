#!/usr/bin/env node
/**
 * The `vigil` command-line client. `run()` is the whole CLI, in process: it takes the arguments and the I/O
 * (streams, environment, fetch) and answers the exit code, so tests drive it without a child process. Run as
 * a program, this module calls it with the process's own and sets process.exitCode.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { registerAccount } from './commands/account.js';
import { registerApiKey } from './commands/api-key.js';
import { registerEvents } from './commands/events.js';
import { registerFeeds } from './commands/feeds.js';
import { registerImage } from './commands/image.js';
import { registerLogin } from './commands/login.js';
import { registerPolicy } from './commands/policy.js';
import { registerReport } from './commands/report.js';
import { registerRole } from './commands/role.js';
import { registerSbom } from './commands/sbom.js';
import { registerSubscription } from './commands/subscription.js';
import { registerSystem } from './commands/system.js';
import { registerUser } from './commands/user.js';
import { bashCompletion, zshCompletion } from './completion.js';
import { CliError, EXIT } from './exit-codes.js';
import { FORMATS } from './output.js';
import { Session, type CliIO } from './session.js';

export type { CliIO } from './session.js';

/** The package version, from the package.json above this file (in src/cli/ and in dist/src/cli/ alike). */
function packageVersion(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) return 'unknown';
  }
}

export function buildProgram(session: Session): Command {
  const program = new Command('vigil');
  // Set before any subcommand is added: subcommands copy these settings when created.
  program
    .exitOverride()
    .configureOutput({ writeOut: (s) => session.io.stdout.write(s), writeErr: (s) => session.io.stderr.write(s) })
    .description('Vigil command-line client: analyze images, read findings, gate CI on policy (docs/cli.md)')
    .version(session.version, '-V, --version', 'print the CLI version')
    .option('--url <url>', 'the Vigil service (env VIGIL_URL; default http://127.0.0.1:8228)')
    .option('--username <name>', 'user name (env VIGIL_USERNAME)')
    .option('--password <password>', 'password (env VIGIL_PASSWORD)')
    .option('--api-key <key>', 'API key (env VIGIL_API_KEY)')
    .option('--account <name>', 'act on this account, sent as x-anchore-account (env VIGIL_ACCOUNT)')
    .option('--context <name>', 'a context of the config file (env VIGIL_CONTEXT)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(FORMATS).default('table'));

  registerLogin(program, session);
  registerSystem(program, session);
  registerImage(program, session);
  registerSbom(program, session);
  registerPolicy(program, session);
  registerFeeds(program, session);
  registerSubscription(program, session);
  registerEvents(program, session);
  registerReport(program, session);
  registerAccount(program, session);
  registerUser(program, session);
  registerApiKey(program, session);
  registerRole(program, session);

  program
    .command('completion')
    .description('print a shell completion script (bash: source <(vigil completion bash))')
    .argument('<shell>', 'bash or zsh', (value) => {
      if (value !== 'bash' && value !== 'zsh') throw new CliError('error: completion is available for bash and zsh');
      return value;
    })
    .action((shell: 'bash' | 'zsh') => {
      session.write(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
    });
  return program;
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const session = new Session(io, packageVersion());
  const program = buildProgram(session);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? EXIT.ok : EXIT.error;
    }
    if (err instanceof CliError) {
      io.stderr.write(err.message + '\n');
      return err.exitCode;
    }
    // Files that cannot be read and the like: the message names what and why.
    io.stderr.write(`error: ${(err as Error).message}\n`);
    return EXIT.error;
  }
  return session.exitCode;
}

function invokedDirectly(): boolean {
  const script = process.argv[1];
  return !!script && import.meta.url === pathToFileURL(realpathSync(script)).href;
}

if (invokedDirectly()) {
  const interrupts = (onInterrupt: () => void) => {
    process.once('SIGINT', onInterrupt);
    return () => process.off('SIGINT', onInterrupt);
  };
  process.exitCode = await run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, interrupts });
}
