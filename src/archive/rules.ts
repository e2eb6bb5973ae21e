/**
 * Archive transition rules: what the periodic archive-rules job (./transitions.ts) moves into the archive or deletes
 * from it. An account sees its own rules and the system-global ones; only administrators create or delete global
 * rules, which belong to the admin account.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import { toBool } from '../db/index.js';
import { ForbiddenError, InvalidError, NotFoundError } from '../errors.js';
import { nowIso } from '../util/time.js';

export interface ImageSelector {
  registry?: string;
  repository?: string;
  tag?: string;
}

export interface RuleExclude {
  selector?: ImageSelector;
  expiration_days?: number;
}

export interface ArchiveRule {
  rule_id: string;
  account_name: string;
  transition: 'archive' | 'delete';
  selector: ImageSelector;
  tag_versions_newer: number;
  analysis_age_days: number;
  system_global: boolean;
  exclude: RuleExclude | null;
  max_images_per_account: number | null;
  created_at: string;
  last_updated: string;
}

export type NewArchiveRule = Partial<Pick<ArchiveRule, 'selector' | 'tag_versions_newer' | 'analysis_age_days' | 'system_global' | 'exclude' | 'max_images_per_account'>> &
  Pick<ArchiveRule, 'transition'>;

/** Rules per account (global ones count against the admin account): each is applied on every run. */
export const MAX_RULES_PER_ACCOUNT = 100;

/** Who asks: global rules are for administrators only. */
export interface RuleCaller {
  accountName: string;
  isAdmin: boolean;
}

function ruleOf(row: any): ArchiveRule {
  return {
    ...row,
    selector: JSON.parse(row.selector),
    exclude: row.exclude ? JSON.parse(row.exclude) : null,
    system_global: toBool(row.system_global),
    tag_versions_newer: Number(row.tag_versions_newer),
    analysis_age_days: Number(row.analysis_age_days),
    max_images_per_account: row.max_images_per_account === null ? null : Number(row.max_images_per_account),
  };
}

function notFound(ruleId: string): NotFoundError {
  return new NotFoundError(`no archive transition rule '${ruleId}'`, { rule_id: ruleId });
}

export async function createRule(db: Db, caller: RuleCaller, input: NewArchiveRule): Promise<ArchiveRule> {
  const global = input.system_global ?? false;
  if (global && !caller.isAdmin) throw new ForbiddenError('only administrators create system-global archive rules');
  if (input.max_images_per_account !== undefined && !global)
    throw new InvalidError('max_images_per_account applies to system-global rules only', {
      errors: [{ location: 'body.max_images_per_account', message: 'needs system_global: true' }],
    });
  const count = await db('analysis_archive_rules').where({ account_name: caller.accountName }).count({ n: '*' }).first();
  if (Number(count?.n ?? 0) >= MAX_RULES_PER_ACCOUNT)
    throw new InvalidError(`an account has at most ${MAX_RULES_PER_ACCOUNT} archive rules; delete one first`, { limit: MAX_RULES_PER_ACCOUNT });
  const now = nowIso();
  const rule: ArchiveRule = {
    rule_id: randomUUID(),
    account_name: caller.accountName,
    transition: input.transition,
    selector: input.selector ?? {},
    tag_versions_newer: input.tag_versions_newer ?? 0,
    analysis_age_days: input.analysis_age_days ?? 0,
    system_global: global,
    exclude: input.exclude ?? null,
    max_images_per_account: input.max_images_per_account ?? null,
    created_at: now,
    last_updated: now,
  };
  await db('analysis_archive_rules').insert({
    ...rule,
    selector: JSON.stringify(rule.selector),
    exclude: rule.exclude ? JSON.stringify(rule.exclude) : null,
  });
  return rule;
}

/** The account's rules, with the system-global ones unless left out, oldest first. */
export async function listRules(db: Db, accountName: string, withGlobal = true): Promise<ArchiveRule[]> {
  const q = db('analysis_archive_rules').where((w) => {
    w.where({ account_name: accountName });
    if (withGlobal) w.orWhere({ system_global: true });
  });
  return (await q.orderBy([{ column: 'created_at' }, { column: 'rule_id' }])).map(ruleOf);
}

export async function getRule(db: Db, accountName: string, ruleId: string): Promise<ArchiveRule> {
  const row = await db('analysis_archive_rules')
    .where({ rule_id: ruleId })
    .andWhere((w) => w.where({ account_name: accountName }).orWhere({ system_global: true }))
    .first();
  if (!row) throw notFound(ruleId);
  return ruleOf(row);
}

export async function deleteRule(db: Db, caller: RuleCaller, ruleId: string): Promise<void> {
  const rule = await getRule(db, caller.accountName, ruleId);
  if (rule.system_global && !caller.isAdmin) throw new ForbiddenError('only administrators delete system-global archive rules');
  await db('analysis_archive_rules').where({ rule_id: ruleId }).delete();
}

/** Every rule of every account, for the job. */
export async function allRules(db: Db): Promise<ArchiveRule[]> {
  return (await db('analysis_archive_rules').orderBy([{ column: 'created_at' }, { column: 'rule_id' }])).map(ruleOf);
}
