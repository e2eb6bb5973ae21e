/** Handlers of single sign-on for the web interface (RBAC tag, Vigil extension): the sign-in page's providers, the code exchange. */
import { exchangeCode } from '../auth/sso/browser-login.js';
import { signInOptions } from '../auth/sso/sign-in-options.js';
import type { HandlerGroup } from '../server/handler-types.js';

type SsoOps = 'list_sso_sign_in_options' | 'exchange_sso_code';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export const ssoHandlers: HandlerGroup<SsoOps> = {
  async list_sso_sign_in_options(ctx) {
    return { status: 200, body: await signInOptions(ctx.db), headers: { 'Cache-Control': 'no-store' } };
  },
  async exchange_sso_code(ctx, { body }) {
    try {
      const { user, tokens } = await exchangeCode(ctx.db, ctx.services.tokens, body.code, ctx.cookieHeader);
      ctx.log.info({ username: user.username, account: user.accountName }, 'single sign-on code exchanged');
      return { status: 200, body: { token: tokens.access_token, ...tokens }, headers: NO_STORE };
    } catch (err) {
      ctx.log.warn({ reason: (err as { detail?: { reason?: string } }).detail?.reason }, 'single sign-on code refused');
      throw err;
    }
  },
};
