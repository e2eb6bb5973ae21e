/** Handlers of the System Configuration tag: the runtime settings (src/settings/). */
import type { SettingDefinition } from '../settings/catalog.js';
import { applySettingChanges } from '../settings/effects.js';
import type { SettingState } from '../settings/runtime.js';
import { InvalidError } from '../errors.js';
import type { HandlerGroup } from '../server/handler-types.js';
import type { RequestContext } from '../server/context.js';

type SystemConfigurationOps =
  | 'list_configurations'
  | 'patch_configuration'
  | 'get_configuration_schema'
  | 'get_configuration'
  | 'put_configuration'
  | 'delete_configuration';

function schemaShape(d: SettingDefinition, defaultValue: unknown) {
  const s = d.schema;
  if (s.data_type === 'integer') return { data_type: s.data_type, default_value: defaultValue, ge: s.ge, le: s.le, is_array: false };
  if (s.data_type === 'string') return { data_type: s.data_type, default_value: defaultValue, max_length: s.max_length, is_array: false };
  return { data_type: s.data_type, default_value: defaultValue, enum: [...s.enum], is_array: false };
}

function configurationShape({ definition, value, defaultValue, stored }: SettingState) {
  return {
    ...(stored ? { uuid: stored.uuid, created_at: stored.created_at, updated_at: stored.updated_at } : {}),
    key: definition.key,
    value,
    requires_system_restart: false,
    category: definition.category,
    config_schema: schemaShape(definition, defaultValue),
    title: definition.title,
    description: definition.description,
    default_value: defaultValue,
    source: stored ? ('api' as const) : ('default' as const),
    is_editable: true,
    is_secret: false,
    is_deprecated: false,
    is_system_internal: false,
  };
}

/** Stores the values (all or none), makes them take effect, and answers the changed settings. */
async function setAll(ctx: RequestContext, entries: { key: string; value: unknown }[], location: (i: number) => string) {
  const keys = await ctx.services.settings.set(entries, ctx.caller.username, location);
  await applySettingChanges(ctx.services, keys);
  ctx.log.info({ keys, changed_by: ctx.caller.username }, 'runtime settings changed');
  const states = await ctx.services.settings.states();
  return states.filter((s) => keys.includes(s.definition.key)).map(configurationShape);
}

export const systemConfigurationHandlers: HandlerGroup<SystemConfigurationOps> = {
  async list_configurations(ctx) {
    return { status: 200, body: { items: (await ctx.services.settings.states()).map(configurationShape) } };
  },
  async patch_configuration(ctx, { body }) {
    return { status: 200, body: { items: await setAll(ctx, body, (i) => `body.${i}`) } };
  },
  async get_configuration_schema(ctx) {
    const states = await ctx.services.settings.states();
    return { status: 200, body: Object.fromEntries(states.map((s) => [s.definition.key, schemaShape(s.definition, s.defaultValue)])) };
  },
  async get_configuration(ctx, { params }) {
    return { status: 200, body: configurationShape(await ctx.services.settings.state(params.config_key)) };
  },
  async put_configuration(ctx, { params, body }) {
    await ctx.services.settings.state(params.config_key); // 404 for an unknown key before looking at the body
    if (body.key !== params.config_key)
      throw new InvalidError(`body key '${body.key}' is not the path's '${params.config_key}'`, { errors: [{ location: 'body.key', message: 'differs from the path' }] });
    const [changed] = await setAll(ctx, [{ key: body.key, value: body.value }], () => 'body');
    return { status: 200, body: changed! };
  },
  async delete_configuration(ctx, { params }) {
    await ctx.services.settings.unset(params.config_key);
    await applySettingChanges(ctx.services, [params.config_key]);
    ctx.log.info({ key: params.config_key, changed_by: ctx.caller.username }, 'runtime setting returned to its default');
    return { status: 204 };
  },
};
