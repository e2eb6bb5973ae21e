/**
 * "Allowlist this": adds an item for a policy finding to the allowlist of the mapping that selected the rules
 * (creating one for the interface when the mapping names none), and stores the policy. The document keeps the
 * shape the server validates: every mapping's allowlist_ids must name an allowlist of the same document.
 */
import { type Api, data } from '../../api/client';
import type { Evaluation, Finding, PolicyDocument } from './types';

/** The allowlist the interface creates when the mapping has none. */
const UI_ALLOWLIST = { id: 'web-ui-allowlist', name: 'Allowlisted from the web interface', version: '1_0' };

export function allowlistedDocument(doc: PolicyDocument, evaluation: Evaluation, finding: Finding, reason: string): PolicyDocument {
  const matched = evaluation.matched_mapping_rule as { id?: unknown } | null | undefined;
  const mappingIndex = Math.max(
    0,
    doc.mappings.findIndex((m) => m.id === matched?.id),
  );
  const mapping = doc.mappings[mappingIndex];
  if (!mapping) throw new Error(`Policy '${doc.name}' has no mapping to attach an allowlist to.`);
  const allowlists = [...(doc.allowlists ?? [])];
  let listId = (mapping.allowlist_ids ?? []).find((id) => allowlists.some((a) => a.id === id));
  const mappings = [...doc.mappings];
  if (!listId) {
    listId = UI_ALLOWLIST.id;
    if (!allowlists.some((a) => a.id === listId)) allowlists.push({ ...UI_ALLOWLIST, items: [] });
    mappings[mappingIndex] = { ...mapping, allowlist_ids: [...(mapping.allowlist_ids ?? []), listId] };
  }
  const index = allowlists.findIndex((a) => a.id === listId);
  const list = allowlists[index];
  const itemId = `${finding.gate}:${finding.trigger_id}`.slice(0, 128);
  if (!list.items.some((i) => i.id === itemId)) {
    allowlists[index] = { ...list, items: [...list.items, { id: itemId, gate: finding.gate, trigger_id: finding.trigger_id, ...(reason ? { description: reason } : {}) }] };
  }
  return { ...doc, allowlists, mappings };
}

/** Reads the evaluated policy, adds the finding to its allowlist and stores it. */
export async function allowlistFinding(api: Api, policyId: string, evaluation: Evaluation, finding: Finding, reason: string): Promise<void> {
  const path = { params: { path: { policy_id: policyId } } };
  const record = await data(api.rest.GET('/policies/{policy_id}', path));
  if (!record.policy) throw new Error(`The server sent policy '${policyId}' without its document.`);
  await data(api.rest.PUT('/policies/{policy_id}', { ...path, body: { policy: allowlistedDocument(record.policy, evaluation, finding, reason) } }));
}
