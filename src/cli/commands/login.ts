/**
 * `vigil login`: check the credentials given and keep them as a named context (file mode 0600); with `--sso`, sign
 * in through an OpenID Connect provider instead (device grant) and keep the session's tokens.
 */
import type { Command } from 'commander';
import { apiClient, ok } from '../api.js';
import { readConfig, resolveConnection, writeConfig, type ContextEntry } from '../connection.js';
import { CliError } from '../exit-codes.js';
import type { Session } from '../session.js';
import { deviceLogin } from '../sso-login.js';
import { requestToken } from '../tokens.js';

export function registerLogin(program: Command, session: Session): void {
  program
    .command('login')
    .description('check credentials and store them as a context: a token (with --username/--password, or --sso) or the API key')
    .option('--name <context>', 'the context to write (default: the selected context, else "default")')
    .option('--sso <provider>', 'sign in through this OpenID Connect provider: open the link shown, approve, and the session is kept')
    .action(async (opts: { name?: string; sso?: string }, cmd: Command) => {
      const path = session.configPath();
      const config = readConfig(path);
      const globals = session.options(cmd);
      const name = opts.name ?? globals.context ?? session.io.env.VIGIL_CONTEXT ?? config['current-context'] ?? 'default';
      const existing = config.contexts?.[name] ?? {};
      // Credentials come from flags and environment only: login is how they get into a context.
      const connection = resolveConnection({ ...globals, context: undefined }, session.io.env, {});
      const url = globals.url ?? session.io.env.VIGIL_URL ?? existing.url ?? connection.url;
      const target = { ...connection, url };
      const c = connection.credentials;
      let entry: ContextEntry;
      if (opts.sso !== undefined) {
        const tokens = await deviceLogin(session, apiClient({ ...target, credentials: { kind: 'none' } }, session.io.fetch, session.userAgent), url, opts.sso);
        const me = await ok(apiClient({ url, credentials: { kind: 'bearer', token: tokens.token! } }, session.io.fetch, session.userAgent).GET('/user'), url);
        entry = { url, username: me.username, ...tokens };
      } else if (c.kind === 'basic') {
        const tokens = await requestToken(apiClient({ ...target, credentials: { kind: 'none' } }, session.io.fetch, session.userAgent), url, {
          grant_type: 'password',
          username: c.username,
          password: c.password,
        });
        entry = { url, username: c.username, ...tokens };
      } else if (c.kind === 'api-key') {
        entry = { url, 'api-key': c.key };
      } else {
        throw new CliError('error: give credentials to log in with: --username and --password (or VIGIL_USERNAME/VIGIL_PASSWORD), or --api-key (VIGIL_API_KEY)');
      }
      const account = globals.account ?? session.io.env.VIGIL_ACCOUNT ?? existing.account;
      if (account) entry.account = account;
      // Check what is stored works before storing it: the caller's own account answers for any valid credential.
      const check = apiClient({ url, credentials: entry.token ? { kind: 'bearer', token: entry.token } : c, ...(account ? { account } : {}) }, session.io.fetch, session.userAgent);
      const me = await ok(check.GET('/account'), url);
      config.contexts = { ...(config.contexts ?? {}), [name]: entry };
      config['current-context'] = name;
      writeConfig(path, config);
      const who = entry.username ?? (c.kind === 'basic' ? c.username : 'an API key');
      session.note(`logged in to ${url} as ${who} (account ${me.name}); context ${name} saved in ${path}`);
    });
}
