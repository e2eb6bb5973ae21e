/**
 * `vigil login --sso <provider>`: the OpenID Connect device grant, brokered by Vigil (so the CLI holds no client
 * secret). Vigil answers a user code and a verification URI, which are shown to the user; the CLI then polls Vigil
 * at the provider's interval until the user has approved the sign-in at the provider, and keeps the Vigil token.
 */
import type { VigilClient } from '../../generated/client.js';
import { ok } from './api.js';
import type { ContextEntry } from './connection.js';
import { apiError, CliError } from './exit-codes.js';
import type { Session } from './session.js';

/** The answers of a poll that mean "not yet". */
const WAITING = new Set(['authorization_pending', 'slow_down']);

export async function deviceLogin(session: Session, client: VigilClient, url: string, provider: string, now = () => Date.now()): Promise<Pick<ContextEntry, 'token' | 'refresh-token' | 'token-expires-at'>> {
  const path = { params: { path: { provider_name: provider } } };
  const started = await ok(client.POST('/rbac-manager/oidc/device/{provider_name}', path), url);
  const link = started.verification_uri_complete ?? started.verification_uri;
  session.note(`To sign in through ${provider}, open ${link}${started.verification_uri_complete ? '' : ` and enter the code ${started.user_code}`}`);
  if (started.verification_uri_complete) session.note(`(or open ${started.verification_uri} and enter the code ${started.user_code})`);
  session.note('waiting for the sign-in to be approved ...');
  const deadline = now() + started.expires_in * 1000;
  // Tests set a short poll interval (CliIO.pollIntervalMs); people get the provider's.
  const pause = (seconds: number) => session.io.pollIntervalMs ?? seconds * 1000;
  let waitMs = pause(started.interval);
  for (;;) {
    if (now() + waitMs > deadline) throw new CliError(`error: the sign-in was not approved within ${started.expires_in}s: run vigil login --sso ${provider} again`);
    await session.sleep(waitMs);
    const answer = await client.POST('/rbac-manager/oidc/device/{provider_name}/token', { ...path, body: { handle: started.handle } }).catch((err: Error) => {
      throw new CliError(`error: cannot reach Vigil at ${url}: ${(err.cause as { code?: string } | undefined)?.code ?? err.message}`);
    });
    if (answer.data) {
      return {
        token: answer.data.token,
        ...(answer.data.refresh_token ? { 'refresh-token': answer.data.refresh_token } : {}),
        ...(answer.data.expires_in ? { 'token-expires-at': new Date(now() + answer.data.expires_in * 1000).toISOString() } : {}),
      };
    }
    const errorType = (answer.error as { error_type?: string } | undefined)?.error_type;
    if (!errorType || !WAITING.has(errorType)) throw apiError(answer.response, answer.error);
    const retryAfter = Number(answer.response.headers.get('retry-after'));
    waitMs = pause(errorType === 'slow_down' && retryAfter > 0 ? retryAfter : started.interval);
  }
}
