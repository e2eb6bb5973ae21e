/**
 * Policy evaluation of a source (GET /sources/{id}/check): the first of the policy's source_mappings whose host and
 * repository patterns match selects the rule sets and allowlists, which run through the image evaluation's rule
 * engine (policy/evaluate-policy.ts) against the source's packages and stored findings. Only the gates in
 * SOURCE_GATES apply: the others read image facts (layers, files, Dockerfile, tags) a source does not have.
 * Computed per request; nothing is stored.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import type { DistroInfo } from '../ecosystems/model.js';
import type { PolicyDocument } from '../policy/document.js';
import { evaluateRuleSets, patternMatches, policyActionOf, type EvaluationProblem } from '../policy/evaluate-policy.js';
import type { EvaluationContext } from '../policy/evaluation-context.js';
import { distroNamespaceOf, feedGroupStates, once } from '../policy/image-context.js';
import { activePolicy, getPolicy } from '../policy/store.js';
import { sourceVulnerabilities } from './report.js';
import { sourcePackages, type SourceRecord } from './store.js';

/** The gates whose rules are evaluated for sources (upstream: source rule sets support the vulnerabilities gate). */
export const SOURCE_GATES: ReadonlySet<string> = new Set(['vulnerabilities']);

type SourceMappingRule = NonNullable<PolicyDocument['source_mappings']>[number];

function distroOf(source: SourceRecord): DistroInfo | undefined {
  return source.distro ? { name: source.distro, version: source.distro_version ?? '', like: source.distro_like ? source.distro_like.split(',') : [] } : undefined;
}

/** The evaluation context of a source: its packages and findings; no image facts, files or searches. */
function sourceEvaluationContext(db: Db, source: SourceRecord, now: Date): EvaluationContext {
  const distro = distroOf(source);
  return {
    image: {
      accountName: source.account_name,
      digest: source.source_id,
      imageId: null,
      ...(distro ? { distro } : {}),
      arch: null,
      size: null,
      layerCount: null,
      dockerfile: { mode: null, text: null },
      configExposedPorts: [],
      tag: { registry: source.host, repo: source.repository_name, tag: source.revision, fullTag: `${source.host}/${source.repository_name}:${source.revision}` },
    },
    now,
    packages: once(() => sourcePackages(db, source)),
    files: async () => [],
    vulnerabilities: once(() => sourceVulnerabilities(db, source, { vulnType: 'all', vendorOnly: false, includeDescription: false })),
    feedGroups: once(() => feedGroupStates(db)),
    distroNamespace: () => distroNamespaceOf(distro),
    retrievedFiles: async () => undefined,
    secretSearch: async () => undefined,
    contentSearch: async () => undefined,
    ancestors: async () => [],
    previousImagePackages: async () => undefined,
  };
}

export async function evaluateSource(db: Db, source: SourceRecord, options: { policyId?: string; now?: Date }) {
  const record = options.policyId ? await getPolicy(db, source.account_name, options.policyId, true) : await activePolicy(db, source.account_name);
  const policy = record.policy as PolicyDocument;
  const now = options.now ?? new Date();
  const mapping: SourceMappingRule | null = (policy.source_mappings ?? []).find((m) => patternMatches(m.host, source.host) && patternMatches(m.repository, source.repository_name)) ?? null;
  const problems: EvaluationProblem[] = [];
  const findings = mapping ? await evaluateRuleSets(policy, mapping, sourceEvaluationContext(db, source, now), problems, (gate) => SOURCE_GATES.has(gate.toLowerCase())) : [];
  const finalAction = policyActionOf(findings, problems);
  return {
    account_name: source.account_name,
    evaluation_id: randomUUID(),
    source_id: source.source_id,
    host: source.host,
    repository_name: source.repository_name,
    revision: source.revision,
    policy,
    source_mapped_to_rule: !!mapping,
    // An open object in upstream's schema.
    matched_mapping_rule: mapping as Record<string, unknown> | null,
    findings,
    number_of_findings: findings.length,
    evaluation_time: now.toISOString(),
    final_action: finalAction,
    final_action_reason: 'policy_evaluation' as const,
    evaluation_problems: problems,
    status: finalAction === 'stop' ? ('fail' as const) : ('pass' as const),
  };
}
