/**
 * Action (remediation) plans: what is to be done about an image's policy findings, recorded per image of an
 * account. The image must exist in the account (named by digest, or by a tag resolved to its current digest), as
 * must a named policy and notification endpoint configuration; the plan is recorded, not sent.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import { InvalidError, NotFoundError } from '../errors.js';
import { getImage } from '../images/store.js';
import { fullTag, parseImageReference } from '../images/sources/references.js';
import { getConfiguration } from '../notifications/configurations.js';
import { ENDPOINT_KINDS, type EndpointKind } from '../notifications/types.js';
import { getPolicy } from '../policy/store.js';
import { nowIso } from '../util/time.js';
import { insertActionPlan, selectActionPlans, tagDigest, type ActionPlanFilter, type ActionPlanRow } from './store.js';

/** Upstream does not page the listing; this many newest plans are answered at most. */
export const MAX_LISTED_PLANS = 1000;

export interface ActionPlanResolution {
  trigger_ids: string[];
  content: string | null;
}

export interface ActionPlanInput {
  type?: string;
  image_tag?: string;
  image_digest?: string;
  policy_id?: string;
  resolutions?: { trigger_ids?: string[]; content?: string }[];
  endpoint?: string;
  configuration_id?: string;
  subject?: string;
  message?: string;
}

export interface ActionPlan extends Omit<ActionPlanRow, 'resolutions' | 'account_name'> {
  resolutions: ActionPlanResolution[];
}

const invalid = (location: string, message: string) => new InvalidError(`${location.replace(/^body\./, '')} ${message}`, { errors: [{ location, message }] });

/** A tag as stored with the account's images (docker.io/library/nginx:latest for `nginx`). */
export function normalisedTag(tag: string, location: string): string {
  const ref = parseImageReference(tag);
  if (ref.digest) throw invalid(location, 'must name a tag, not a digest');
  return fullTag(ref);
}

/** The plan's image digest: as given, or the one its tag maps to now; both given must belong together. */
async function imageOf(db: Db, accountName: string, input: ActionPlanInput): Promise<{ digest: string; tag: string | null }> {
  const tag = input.image_tag ? normalisedTag(input.image_tag, 'body.image_tag') : null;
  if (!input.image_digest && !tag) throw invalid('body.image_digest', 'or image_tag is required: the plan is for an image');
  if (!input.image_digest) {
    const digest = await tagDigest(db, accountName, tag!);
    if (!digest) throw new NotFoundError(`no image of this account is tagged '${tag}'`, { image_tag: tag });
    return { digest, tag };
  }
  await getImage(db, accountName, input.image_digest);
  if (tag && !(await tagDigest(db, accountName, tag, input.image_digest)))
    throw invalid('body.image_tag', `'${tag}' has never named image ${input.image_digest} in this account`);
  return { digest: input.image_digest, tag };
}

async function checkEndpoint(db: Db, accountName: string, input: ActionPlanInput): Promise<void> {
  if (input.endpoint !== undefined && !(ENDPOINT_KINDS as readonly string[]).includes(input.endpoint))
    throw invalid('body.endpoint', `must be a notification endpoint type: ${ENDPOINT_KINDS.join(', ')}`);
  if (input.configuration_id === undefined) return;
  if (input.endpoint === undefined) throw invalid('body.endpoint', 'is required with configuration_id: it names the endpoint type of the configuration');
  await getConfiguration(db, accountName, input.endpoint as EndpointKind, input.configuration_id);
}

export async function addActionPlan(db: Db, accountName: string, input: ActionPlanInput): Promise<ActionPlan> {
  const image = await imageOf(db, accountName, input);
  if (input.policy_id !== undefined) await getPolicy(db, accountName, input.policy_id, false);
  await checkEndpoint(db, accountName, input);
  const now = nowIso();
  const row: ActionPlanRow = {
    uuid: randomUUID(),
    account_name: accountName,
    type: input.type ?? null,
    image_digest: image.digest,
    image_tag: image.tag,
    policy_id: input.policy_id ?? null,
    resolutions: JSON.stringify((input.resolutions ?? []).map((r) => ({ trigger_ids: r.trigger_ids ?? [], content: r.content ?? null }))),
    endpoint: input.endpoint ?? null,
    configuration_id: input.configuration_id ?? null,
    subject: input.subject ?? null,
    message: input.message ?? null,
    created_at: now,
    last_updated: now,
  };
  await insertActionPlan(db, row);
  return planOf(row);
}

export async function listActionPlans(db: Db, accountName: string, filter: ActionPlanFilter): Promise<ActionPlan[]> {
  const imageTag = filter.imageTag ? normalisedTag(filter.imageTag, 'query.image_tag') : undefined;
  const createdAfter = filter.createdAfter ? new Date(filter.createdAfter).toISOString() : undefined;
  return (await selectActionPlans(db, accountName, { ...filter, imageTag, createdAfter }, MAX_LISTED_PLANS)).map(planOf);
}

function planOf({ account_name: _account, resolutions, ...rest }: ActionPlanRow): ActionPlan {
  return { ...rest, resolutions: JSON.parse(resolutions) as ActionPlanResolution[] };
}
