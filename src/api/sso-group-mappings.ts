/**
 * The user-group mapping operations of single sign-on providers, shared by SAML identity providers
 * (`/rbac-manager/saml/idps/{name}/user-group-mappings`, upstream) and OpenID Connect providers
 * (`/rbac-manager/oidc/providers/{name}/user-group-mappings`, the same shapes).
 */
import * as mappings from '../auth/sso/group-mappings.js';
import type { Db } from '../db/index.js';
import type { components } from '../../generated/openapi-types.js';

type MappedGroup = components['schemas']['RbacManagerIdpUserGroup'];

function mappingShape(m: mappings.GroupMappingRecord): MappedGroup {
  return { user_group_uuid: m.group_uuid, user_group_name: m.group_name, mapped_on: m.created_at };
}

/** `ensureProvider` throws NotFoundError for a provider that does not exist. */
export function groupMappingOperations(source: mappings.SsoProviderRef['source'], ensureProvider: (db: Db, name: string) => Promise<unknown>) {
  const ref = (name: string) => ({ source, name });
  return {
    async list(db: Db, name: string): Promise<MappedGroup[]> {
      await ensureProvider(db, name);
      return (await mappings.listGroupMappings(db, ref(name))).map(mappingShape);
    },
    async add(db: Db, name: string, groupUuids: readonly string[]): Promise<MappedGroup[]> {
      await ensureProvider(db, name);
      return (await mappings.addGroupMappings(db, ref(name), groupUuids)).map(mappingShape);
    },
    async remove(db: Db, name: string, userGroup: string): Promise<void> {
      await ensureProvider(db, name);
      await mappings.removeGroupMapping(db, ref(name), userGroup);
    },
  };
}
