/**
 * node-saml's store of pending AuthnRequest ids, kept in the database so that any node of a deployment can
 * receive the identity provider's answer to a login another node started. An id is removed once answered.
 */
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Db } from '../../db/index.js';
import { nowIso } from '../../util/time.js';

export const REQUEST_LIFETIME_MS = 10 * 60_000;

export class SamlRequestStore implements CacheProvider {
  constructor(
    private readonly db: Db,
    private readonly idpName: string,
  ) {}

  async saveAsync(id: string, instant: string): Promise<CacheItem | null> {
    const createdAt = Date.parse(instant);
    // Requests never answered would pile up: drop the expired ones whenever a new one is made.
    await this.db('saml_requests').where('expires_at', '<', nowIso()).delete();
    await this.db('saml_requests').insert({ id, idp_name: this.idpName, expires_at: new Date(createdAt + REQUEST_LIFETIME_MS).toISOString() });
    return { value: instant, createdAt };
  }

  /** Answers the request's creation instant, which node-saml compares with its own expiry. */
  async getAsync(id: string): Promise<string | null> {
    const row = await this.db('saml_requests').where({ id, idp_name: this.idpName }).where('expires_at', '>', nowIso()).first('expires_at');
    return row ? new Date(Date.parse(row.expires_at) - REQUEST_LIFETIME_MS).toISOString() : null;
  }

  async removeAsync(id: string | null): Promise<string | null> {
    if (!id) return null;
    const count = await this.db('saml_requests').where({ id, idp_name: this.idpName }).delete();
    return count > 0 ? id : null;
  }
}
