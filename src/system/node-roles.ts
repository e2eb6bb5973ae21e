/**
 * Vigil's process roles (VIGIL_ROLES): which parts of the service one process runs. Any process may hold any
 * subset, and any number of processes may hold each role; work is shared through the database.
 */
export const NODE_ROLES = {
  api: 'the REST API under /v2 and GraphQL reporting under /v2/reports',
  analyzer: 'analysis jobs (analyze_image, analyze_running_images)',
  feeds: 'feed sync, re-match and policy re-evaluation jobs (feed_sync, vuln_rematch, corrections_rematch, policy_reevaluate, policy_reevaluate_images)',
  reports: 'the reporting read model refresh (reports_refresh) and scheduled query runs (scheduled_query_run)',
  notifications: 'delivery of queued notifications (notifications_deliver)',
  scheduler:
    'time-driven work as periodic jobs: feed sync schedule, watched tags and repositories, inventory expiry, scheduled query slots, metric collection, job record pruning',
} as const;

export type NodeRole = keyof typeof NODE_ROLES;

export const ROLE_NAMES = Object.keys(NODE_ROLES) as NodeRole[];

export function isNodeRole(name: string): name is NodeRole {
  return Object.hasOwn(NODE_ROLES, name);
}

/**
 * Reads a VIGIL_ROLES value: a comma-separated list of role names, or `all`. Answers the roles in canonical order,
 * or the first entry that is not a role name.
 */
export function parseRoles(raw: string): { roles: NodeRole[] } | { unknown: string } {
  const entries = raw.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  if (entries.length === 0) return { unknown: raw };
  const wanted = new Set<NodeRole>();
  for (const entry of entries) {
    if (entry === 'all') ROLE_NAMES.forEach((r) => wanted.add(r));
    else if (isNodeRole(entry)) wanted.add(entry);
    else return { unknown: entry };
  }
  return { roles: ROLE_NAMES.filter((r) => wanted.has(r)) };
}
