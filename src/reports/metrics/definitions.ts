/**
 * The metrics catalog: what the collector samples for each account, read from the reporting read model (the
 * report_* tables) as it is. Metrics come in families that share one aggregate query (all severities of the
 * vulnerability counts, pass and fail of the policy counts, ...), so a collection costs one query per family
 * and account, never one per tag or image.
 */
import type { Db } from '../../db/index.js';
import { toBool } from '../../db/index.js';
import { SEVERITY_ORDER } from '../../vulns/vuln-details.js';

export interface MetricDefinition {
  /** Dotted identifier, e.g. `vulnerabilities.tags.current.critical`. */
  id: string;
  name: string;
  description: string;
  /** Every metric is a value sampled at collection time. */
  metricType: 'gauge';
}

export interface MetricFamily {
  metrics: MetricDefinition[];
  /** The value of every metric of the family for one account, in one query. */
  compute(db: Db, accountName: string): Promise<Map<string, number>>;
}

const gauge = (id: string, name: string, description: string): MetricDefinition => ({ id, name, description, metricType: 'gauge' });

/** Counts come back as numbers (SQLite), strings (Postgres bigint) or null (SUM over no rows). */
const count = (v: unknown): number => Number(v ?? 0);

// ------------------------------------------------------------------------------------------ vulnerabilities

/** Severities from worst to least, as stored in report_findings. */
const SEVERITIES = [...SEVERITY_ORDER].reverse();

function vulnerabilityMetric(mappings: 'current' | 'all', severity: string): MetricDefinition {
  const which = mappings === 'current' ? 'current tag mapping' : 'tag mapping, current or historic,';
  return gauge(
    `vulnerabilities.tags.${mappings}.${severity.toLowerCase()}`,
    `${severity} vulnerabilities of ${mappings === 'current' ? 'current' : 'all'} tags`,
    `For each ${which} the number of distinct vulnerabilities of ${severity} severity in the image it maps to, ` +
      `summed over the mappings (an image with two tags counts twice). A vulnerability counts once per image, ` +
      `under its worst severity, whichever packages it affects; findings the distribution will not fix are included.`,
  );
}

/**
 * Both vulnerability families in one query: each (image, vulnerability) reduced to its worst severity, joined
 * to the image's tag mappings and counted per (current flag, severity).
 */
async function vulnerabilityCounts(db: Db, accountName: string): Promise<{ current: Map<string, number>; all: Map<string, number> }> {
  // The rank is the index in SEVERITY_ORDER (literal integers; only the severity words are bound).
  const rank = `CASE severity ${SEVERITY_ORDER.map((_, i) => `WHEN ? THEN ${i}`).join(' ')} ELSE 0 END`;
  const rankBindings = [...SEVERITY_ORDER];
  const worstPerImage = db('report_findings')
    .where('account_name', accountName)
    .groupBy('image_digest', 'vuln_id')
    .select('image_digest', db.raw(`MAX(${rank}) as severity_rank`, rankBindings))
    .as('v');
  const rows: { current: unknown; severity_rank: unknown; n: unknown }[] = await db('report_tags as t')
    .join(worstPerImage, 'v.image_digest', 't.image_digest')
    .where('t.account_name', accountName)
    .groupBy('t.current', 'v.severity_rank')
    .select('t.current', 'v.severity_rank', db.raw('COUNT(*) as n'));
  const current = new Map(SEVERITY_ORDER.map((s) => [s, 0]));
  const all = new Map(SEVERITY_ORDER.map((s) => [s, 0]));
  for (const r of rows) {
    const severity = SEVERITY_ORDER[Number(r.severity_rank)];
    all.set(severity, all.get(severity)! + count(r.n));
    if (toBool(r.current)) current.set(severity, current.get(severity)! + count(r.n));
  }
  return { current, all };
}

const vulnerabilityFamily: MetricFamily = {
  metrics: [...SEVERITIES.map((s) => vulnerabilityMetric('current', s)), ...SEVERITIES.map((s) => vulnerabilityMetric('all', s))],
  async compute(db, accountName) {
    const counts = await vulnerabilityCounts(db, accountName);
    const out = new Map<string, number>();
    for (const mappings of ['current', 'all'] as const)
      for (const [severity, n] of counts[mappings]) out.set(`vulnerabilities.tags.${mappings}.${severity.toLowerCase()}`, n);
    return out;
  },
};

// ------------------------------------------------------------------------------------------ images and tags

const imageFamily: MetricFamily = {
  metrics: [
    gauge('images.analyzed', 'Analyzed images', 'Images (distinct digests) of the account whose analysis completed.'),
    gauge('images.total', 'Images', 'Images (distinct digests) of the account in any analysis state: queued, analyzing, analyzed or failed.'),
  ],
  async compute(db, accountName) {
    const [row] = await db('report_images')
      .where('account_name', accountName)
      .select(db.raw('COUNT(*) as total'), db.raw('SUM(CASE WHEN analysis_status = ? THEN 1 ELSE 0 END) as analyzed', ['analyzed']));
    return new Map([
      ['images.analyzed', count(row?.analyzed)],
      ['images.total', count(row?.total)],
    ]);
  },
};

const tagFamily: MetricFamily = {
  metrics: [gauge('tags.current', 'Current tags', 'Tags (registry/repository:tag) currently mapped to an image of the account.')],
  async compute(db, accountName) {
    const [row] = await db('report_tags').where({ account_name: accountName, current: true }).count({ n: '*' });
    return new Map([['tags.current', count(row?.n)]]);
  },
};

// ------------------------------------------------------------------------------------------ policy

const policyFamily: MetricFamily = {
  metrics: [
    gauge('policy.evaluations.tags.fail', 'Tags failing policy', "Current tags whose latest evaluation under the account's active policy failed."),
    gauge('policy.evaluations.tags.pass', 'Tags passing policy', "Current tags whose latest evaluation under the account's active policy passed."),
  ],
  async compute(db, accountName) {
    const rows: { result: string; n: unknown }[] = await db('report_tags as t')
      .join('report_policy_evaluations as e', (j) => j.on('e.account_name', 't.account_name').andOn('e.image_digest', 't.image_digest').andOn('e.full_tag', 't.full_tag'))
      .join('report_active_policies as ap', (j) => j.on('ap.account_name', 'e.account_name').andOn('ap.policy_id', 'e.policy_id'))
      .where({ 't.account_name': accountName, 't.current': true, 'e.latest': true })
      .groupBy('e.result')
      .select('e.result', db.raw('COUNT(DISTINCT t.full_tag) as n'));
    const of = (result: string) => count(rows.find((r) => r.result === result)?.n);
    return new Map([
      ['policy.evaluations.tags.fail', of('fail')],
      ['policy.evaluations.tags.pass', of('pass')],
    ]);
  },
};

// ------------------------------------------------------------------------------------------ runtime inventory

const inventoryFamily: MetricFamily = {
  metrics: [
    gauge(
      'inventory.images.running',
      'Running images',
      'Distinct images seen running in the runtime inventory (Kubernetes and ECS), by digest, or by tag when the digest is unknown.',
    ),
    gauge('inventory.images.unanalyzed', 'Running images not analyzed', 'Running images (as in inventory.images.running) with no analyzed image of the account.'),
  ],
  async compute(db, accountName) {
    // An item's image is its digest when known (reported, or resolved from the tag by the refresh), else its tag.
    const image = 'COALESCE(i.image_digest, i.image_tag)';
    const [row] = await db('report_inventory as i')
      .leftJoin('report_images as ri', (j) =>
        j.on('ri.account_name', 'i.account_name').andOn('ri.image_digest', 'i.image_digest').andOnVal('ri.analysis_status', 'analyzed'),
      )
      .where('i.account_name', accountName)
      .select(db.raw(`COUNT(DISTINCT ${image}) as running`), db.raw(`COUNT(DISTINCT CASE WHEN ri.image_digest IS NULL THEN ${image} END) as unanalyzed`));
    return new Map([
      ['inventory.images.running', count(row?.running)],
      ['inventory.images.unanalyzed', count(row?.unanalyzed)],
    ]);
  },
};

// ------------------------------------------------------------------------------------------ catalog

export const METRIC_FAMILIES: readonly MetricFamily[] = [vulnerabilityFamily, imageFamily, tagFamily, policyFamily, inventoryFamily];

/** Every metric, ordered by id (the order the `metrics` query pages in). */
export const METRICS: readonly MetricDefinition[] = METRIC_FAMILIES.flatMap((f) => f.metrics).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

const METRIC_IDS = new Set(METRICS.map((m) => m.id));

export function isMetricId(id: string): boolean {
  return METRIC_IDS.has(id);
}

/** The ids in brief, siblings folded: `images.{analyzed,total}, tags.current, ...` (for error messages). */
export function metricIdsInBrief(): string {
  const byParent = new Map<string, string[]>();
  for (const { id } of METRIC_FAMILIES.flatMap((f) => f.metrics)) {
    const dot = id.lastIndexOf('.');
    const parent = id.slice(0, dot);
    byParent.set(parent, [...(byParent.get(parent) ?? []), id.slice(dot + 1)]);
  }
  return [...byParent].map(([parent, leaves]) => (leaves.length === 1 ? `${parent}.${leaves[0]}` : `${parent}.{${leaves.join(',')}}`)).join(', ');
}

/** Every metric of one account, one query per family. */
export async function computeAccountMetrics(db: Db, accountName: string): Promise<Map<string, number>> {
  const values = new Map<string, number>();
  for (const family of METRIC_FAMILIES) {
    const computed = await family.compute(db, accountName);
    for (const m of family.metrics) {
      const v = computed.get(m.id);
      if (v === undefined || !Number.isFinite(v)) throw new Error(`metric ${m.id} was not computed`);
      values.set(m.id, v);
    }
  }
  return values;
}
