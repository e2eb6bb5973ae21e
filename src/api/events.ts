/** Handlers of the Events tag. */
import { EVENT_CATEGORIES } from '../events/catalog.js';
import * as events from '../events/events.js';
import type { HandlerGroup } from '../server/handler-types.js';

type EventOps = 'list_events' | 'delete_events' | 'get_event' | 'delete_event' | 'list_event_types';

function eventShape(e: events.EventRecord) {
  return {
    generated_uuid: e.id,
    created_at: e.timestamp,
    event: {
      type: e.type,
      level: e.level,
      message: e.message,
      details: JSON.parse(e.details) as Record<string, unknown>,
      timestamp: e.timestamp,
      resource: { type: e.resource_type, id: e.resource_id, account_name: e.account_name },
      source: { service_name: 'vigil', host_id: e.host_id },
    },
  };
}

export const eventHandlers: HandlerGroup<EventOps> = {
  async list_events(ctx, { query }) {
    const page = query.page ?? 1;
    const { events: list, nextPage } = await events.listEvents(
      ctx.db,
      ctx.account.name,
      { eventType: query.event_type, resourceType: query.resource_type, resourceId: query.resource_id, level: query.level, since: query.since, before: query.before },
      page,
      query.limit ?? 100,
    );
    return { status: 200, body: { results: list.map(eventShape), next_page: nextPage, item_count: list.length, page } };
  },
  async delete_events(ctx, { query }) {
    return { status: 200, body: await events.deleteEvents(ctx.db, ctx.account.name, { since: query.since, before: query.before, level: query.level }) };
  },
  async get_event(ctx, { params }) {
    return { status: 200, body: eventShape(await events.getEvent(ctx.db, ctx.account.name, params.event_id)) };
  },
  async delete_event(ctx, { params }) {
    await events.deleteEvent(ctx.db, ctx.account.name, params.event_id);
    return { status: 200 };
  },
  async list_event_types() {
    return {
      status: 200,
      body: EVENT_CATEGORIES.map((c) => ({
        name: c.name,
        description: c.description,
        types: c.types.map((t) => ({ name: t.type.split('.').pop()!, type: t.type, level: t.level, message: t.message })),
      })),
    };
  },
};
