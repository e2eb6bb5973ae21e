/** Handlers of the Subscriptions and Repository tags. */
import { InvalidError } from '../errors.js';
import { fullName, fullTag, parseImageReference } from '../images/sources/references.js';
import * as subs from '../images/subscriptions.js';
import { watchRepository } from '../images/watch.js';
import type { HandlerGroup } from '../server/handler-types.js';

type SubscriptionOps = 'list_subscriptions' | 'add_subscription' | 'get_subscription' | 'update_subscription' | 'delete_subscription' | 'add_repository';

function subscriptionShape(s: subs.SubscriptionRecord) {
  return {
    subscription_id: s.id,
    subscription_key: s.subscription_key,
    subscription_type: s.subscription_type,
    subscription_value: s.subscription_value,
    account_name: s.account_name,
    active: s.active,
    created_at: s.created_at,
    last_updated: s.last_updated,
  };
}

/**
 * Tag keys are stored normalised (docker.io/library/nginx:latest), so `nginx` and the full name are one key. An
 * alerts key without a tag names a repository (upstream: alerts on each of its tags).
 */
function normaliseKey(type: subs.SubscriptionType, key: string): string {
  const ref = parseImageReference(key);
  if (ref.digest) throw new InvalidError('subscription_key must name a tag or repository, not a digest', { errors: [{ location: 'body.subscription_key', message: 'names a digest' }] });
  // The parser defaults a missing tag to `latest`; a tag is named when the last component has a ':' (its rule too).
  const namesTag = (key.trim().split('/').pop() ?? '').includes(':');
  return type === 'repo_update' || (type === 'alerts' && !namesTag) ? fullName(ref) : fullTag(ref);
}

export const subscriptionHandlers: HandlerGroup<SubscriptionOps> = {
  async list_subscriptions(ctx, { query }) {
    const key = query.subscription_key ? normaliseKey(query.subscription_type ?? 'tag_update', query.subscription_key) : undefined;
    const list = await subs.listSubscriptions(ctx.db, ctx.account.name, { key, type: query.subscription_type });
    return { status: 200, body: list.map(subscriptionShape) };
  },
  async add_subscription(ctx, { body }) {
    const created = await subs.addSubscription(ctx.db, ctx.account.name, {
      type: body.subscription_type,
      key: normaliseKey(body.subscription_type, body.subscription_key),
      value: body.subscription_value,
    });
    return { status: 200, body: [subscriptionShape(created)] };
  },
  async get_subscription(ctx, { params }) {
    return { status: 200, body: [subscriptionShape(await subs.getSubscription(ctx.db, ctx.account.name, params.subscription_id))] };
  },
  async update_subscription(ctx, { params, body }) {
    return { status: 200, body: [subscriptionShape(await subs.updateSubscription(ctx.db, ctx.account.name, params.subscription_id, body))] };
  },
  async delete_subscription(ctx, { params }) {
    await subs.deleteSubscription(ctx.db, ctx.account.name, params.subscription_id);
    return { status: 204 };
  },
  async add_repository(ctx, { query }) {
    const lastComponent = query.repository.split('/').pop() ?? '';
    if (query.repository.includes('@') || lastComponent.includes(':'))
      throw new InvalidError('repository must name a repository, without tag or digest', { errors: [{ location: 'query.repository', message: 'has a tag or digest' }] });
    const watched = await watchRepository(ctx.services, ctx.account.name, fullName(parseImageReference(query.repository)), {
      settings: { auto_subscribe: query.auto_subscribe ?? true, exclude_existing_tags: query.exclude_existing_tags ?? false },
      dryRun: query.dry_run ?? false,
    });
    return { status: 200, body: watched.map(subscriptionShape) };
  },
};
