/**
 * Applying the archive transition rules, as a periodic job kind on the job runtime: an `archive` rule moves the
 * matching analyzed images of the working set into the archive (and out of the working set), a `delete` rule
 * deletes matching archived analyses. Each rule that moved something records one event per account naming the
 * images, so the account's event log says what its rules did. A run moves a bounded number of images per rule and
 * account; the next run continues.
 */
import type { Db } from '../db/index.js';
import { recordEvent } from '../events/events.js';
import { tagsOf } from '../images/store.js';
import { definePeriodicJob } from '../jobs/periodic.js';
import { patternMatches } from '../policy/evaluate-policy.js';
import { archiveImage, deleteArchived, type TagEntry } from './archive.js';
import { allRules, type ArchiveRule, type ImageSelector } from './rules.js';

export const ARCHIVE_RULES_JOB = definePeriodicJob({ kind: 'analysis_archive_rules', role: 'scheduler' });
/** Hourly: rules count in days. */
export const ARCHIVE_RULES_EVERY_MS = 3600_000;
/** Images one rule moves in one account per run. */
const MAX_MOVED_PER_RUN = 100;
/** Candidates one rule looks at in one account per run, oldest analysis first. */
const MAX_SCANNED_PER_RUN = 5000;
const DAY_MS = 86_400_000;

export interface RuleRunOutcome {
  rule_id: string;
  account_name: string;
  transition: ArchiveRule['transition'];
  image_digests: string[];
}

interface Candidate {
  digest: string;
  analyzedAt: string | null;
  tags: TagEntry[];
}

function selects(selector: ImageSelector | undefined, tag: { registry: string; repo: string; tag: string }): boolean {
  const s = selector ?? {};
  return patternMatches(s.registry || '*', tag.registry) && patternMatches(s.repository || '*', tag.repo) && patternMatches(s.tag || '*', tag.tag);
}

const wildcard = (s: ImageSelector | undefined) => [s?.registry, s?.repository, s?.tag].every((v) => !v || v === '*');

const olderThan = (at: string | null, days: number, now: number) => at !== null && Date.parse(at) < now - days * DAY_MS;

/** Whether the rule's selector, age and exclusion pick the candidate (tag history is checked by the caller). */
function picks(rule: ArchiveRule, c: Candidate, now: number): boolean {
  if (!olderThan(c.analyzedAt, rule.analysis_age_days, now)) return false;
  const selected = c.tags.length ? c.tags.some((t) => selects(rule.selector, t)) : wildcard(rule.selector);
  if (!selected) return false;
  const exclude = rule.exclude;
  if (exclude && c.tags.some((t) => selects(exclude.selector, t))) {
    const days = exclude.expiration_days;
    if (days === undefined || days < 0 || !olderThan(c.analyzedAt, days, now)) return false;
  }
  return true;
}

/** How many other images a tag mapped to after this image's mapping. */
type NewerCount = (tag: TagEntry) => Promise<number>;

async function hasNewerVersions(rule: ArchiveRule, c: Candidate, newer: NewerCount): Promise<boolean> {
  if (rule.tag_versions_newer <= 0) return true;
  for (const t of c.tags) if (selects(rule.selector, t) && (await newer(t)) >= rule.tag_versions_newer) return true;
  return false;
}

async function workingSetCandidates(db: Db, accountName: string, rule: ArchiveRule): Promise<Candidate[]> {
  let q = db('images').where({ account_name: accountName, analysis_status: 'analyzed', image_status: 'active' });
  if (rule.max_images_per_account !== null) {
    // The account's newest analyses up to the maximum are kept.
    const newest = db('images')
      .where({ account_name: accountName, analysis_status: 'analyzed' })
      .orderBy([{ column: 'analyzed_at', order: 'desc' }, { column: 'image_digest' }])
      .limit(rule.max_images_per_account)
      .select('image_digest');
    q = q.whereNotIn('image_digest', newest);
  }
  const images: { image_digest: string; analyzed_at: string | null }[] = await q
    .orderBy([{ column: 'analyzed_at' }, { column: 'image_digest' }])
    .limit(MAX_SCANNED_PER_RUN)
    .select('image_digest', 'analyzed_at');
  const tags = await tagsOf(db, accountName, images.map((i) => i.image_digest));
  return images.map((i) => ({ digest: i.image_digest, analyzedAt: i.analyzed_at, tags: tags.get(i.image_digest) ?? [] }));
}

async function archivedCandidates(db: Db, accountName: string): Promise<Candidate[]> {
  const rows: { image_digest: string; analyzed_at: string | null; image_detail: string }[] = await db('analysis_archive')
    .where({ account_name: accountName, status: 'archived' })
    .orderBy([{ column: 'analyzed_at' }, { column: 'image_digest' }])
    .limit(MAX_SCANNED_PER_RUN)
    .select('image_digest', 'analyzed_at', 'image_detail');
  return rows.map((r) => ({ digest: r.image_digest, analyzedAt: r.analyzed_at, tags: JSON.parse(r.image_detail) }));
}

async function applyRule(db: Db, rule: ArchiveRule, accountName: string, now: number): Promise<string[]> {
  const archiving = rule.transition === 'archive';
  const candidates = archiving ? await workingSetCandidates(db, accountName, rule) : await archivedCandidates(db, accountName);
  const newer: NewerCount = archiving
    ? async (t) => {
        const row = await db('image_tags')
          .where({ account_name: accountName, full_tag: t.full_tag })
          .where('tag_detected_at', '>', t.tag_detected_at)
          .countDistinct({ n: 'image_digest' })
          .first();
        return Number(row?.n ?? 0);
      }
    : async (t) => candidates.filter((c) => c.tags.some((o) => o.full_tag === t.full_tag && o.tag_detected_at > t.tag_detected_at)).length;
  const moved: string[] = [];
  for (const c of candidates) {
    if (moved.length >= MAX_MOVED_PER_RUN) break;
    if (!picks(rule, c, now) || !(await hasNewerVersions(rule, c, newer))) continue;
    if (archiving) {
      const result = await archiveImage(db, accountName, c.digest, { removeFromWorkingSet: true });
      if (result.status === 'archived') moved.push(c.digest);
    } else {
      await deleteArchived(db, accountName, c.digest);
      moved.push(c.digest);
    }
  }
  return moved;
}

/** One run: every rule, in every account it applies to; answers what each rule moved where it moved anything. */
export async function applyArchiveRules(db: Db, now = Date.now()): Promise<RuleRunOutcome[]> {
  const rules = await allRules(db);
  if (!rules.length) return [];
  const everyAccount = rules.some((r) => r.system_global) ? ((await db('accounts').where({ state: 'enabled' }).select('name')) as { name: string }[]).map((a) => a.name) : [];
  const outcomes: RuleRunOutcome[] = [];
  for (const rule of rules) {
    for (const accountName of rule.system_global ? everyAccount : [rule.account_name]) {
      const moved = await applyRule(db, rule, accountName, now);
      if (!moved.length) continue;
      outcomes.push({ rule_id: rule.rule_id, account_name: accountName, transition: rule.transition, image_digests: moved });
      await recordEvent(db, {
        accountName,
        type: 'user.analysis_archive.rule_applied',
        resourceType: 'analysis_archive_rule',
        resourceId: rule.rule_id,
        message: `Archive rule ${rule.rule_id} ${rule.transition === 'archive' ? 'archived' : 'deleted from the archive'} ${moved.length} image analyses`,
        details: { rule_id: rule.rule_id, transition: rule.transition, image_digests: moved },
      });
    }
  }
  return outcomes;
}
