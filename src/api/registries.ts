/** Handlers of the Registries tag. Passwords go in, never out. */
import * as registries from '../images/registry-credentials.js';
import { checkCredentials } from '../images/sources/registry.js';
import type { RequestContext } from '../server/context.js';
import type { HandlerGroup } from '../server/handler-types.js';

type RegistryOps = 'list_registries' | 'create_registry' | 'get_registry' | 'update_registry' | 'delete_registry';

function registryShape(r: registries.RegistryRecord) {
  return {
    registry: r.registry,
    ...(r.registry_name ? { registry_name: r.registry_name } : {}),
    ...(r.registry_user ? { registry_user: r.registry_user } : {}),
    registry_type: r.registry_type,
    registry_verify: r.registry_verify,
    created_at: r.created_at,
    last_updated: r.last_updated,
  };
}

/**
 * With ?validate=true: the registry must accept the credentials before anything is stored. Under the registry
 * policy as configured: a loopback registry opens only once its configuration is stored (images/registry-credentials.ts), so
 * validation cannot be used to reach the machine's ports.
 */
async function validateAgainstRegistry(ctx: RequestContext, input: registries.RegistryInput): Promise<void> {
  const host = input.registry.split('/')[0];
  await checkCredentials(host, { username: input.registry_user ?? '', password: input.registry_pass ?? '' }, {
    policy: ctx.services.outbound.registry,
    verifyTls: input.registry_verify ?? true,
    insecure: input.registry_verify === false,
    timeoutMs: 15_000,
  });
  ctx.log.info({ registry: host }, 'registry credentials validated');
}

export const registryHandlers: HandlerGroup<RegistryOps> = {
  async list_registries(ctx) {
    return { status: 200, body: (await registries.listRegistries(ctx.db, ctx.account.name)).map(registryShape) };
  },
  async create_registry(ctx, { query, body }) {
    if (query.validate) await validateAgainstRegistry(ctx, body);
    return { status: 200, body: [registryShape(await registries.createRegistry(ctx.db, ctx.services.secretBox, ctx.account.name, body))] };
  },
  async get_registry(ctx, { params }) {
    return { status: 200, body: [registryShape(await registries.getRegistry(ctx.db, ctx.account.name, params.registry))] };
  },
  async update_registry(ctx, { params, query, body }) {
    if (query.validate) await validateAgainstRegistry(ctx, body);
    const updated = await registries.updateRegistry(ctx.db, ctx.services.secretBox, ctx.account.name, params.registry, body);
    return { status: 200, body: [registryShape(updated)] };
  },
  async delete_registry(ctx, { params }) {
    await registries.deleteRegistry(ctx.db, ctx.account.name, params.registry);
    return { status: 204 };
  },
};
