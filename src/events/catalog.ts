/** The event types Vigil emits, by category (GET /v2/event-types). Names follow the upstream dotted scheme. */
export type EventLevel = 'INFO' | 'ERROR';

export interface EventTypeInfo {
  type: string;
  level: EventLevel;
  message: string;
}

export const EVENT_CATEGORIES: { name: string; description: string; types: EventTypeInfo[] }[] = [
  {
    name: 'user.image',
    description: 'Analysis of an image added by a user',
    types: [
      { type: 'user.image.analysis.started', level: 'INFO', message: 'Image analysis started' },
      { type: 'user.image.analysis.completed', level: 'INFO', message: 'Image analysis completed' },
      { type: 'user.image.analysis.failed', level: 'ERROR', message: 'Image analysis failed' },
    ],
  },
  {
    name: 'user.source',
    description: 'Source repositories imported from SBOMs',
    types: [
      { type: 'user.source.analysis.completed', level: 'INFO', message: 'Source import completed' },
      { type: 'user.source.vulnerabilities.update', level: 'INFO', message: "The vulnerabilities of an imported source changed" },
    ],
  },
  {
    name: 'user.checks.tag',
    description: 'Changes to what a tag points at, or to its results',
    types: [
      { type: 'user.checks.tag.update', level: 'INFO', message: 'A tag moved to a new image digest' },
      { type: 'user.checks.tag.vulnerabilities.update', level: 'INFO', message: "The vulnerabilities of a subscribed tag's image changed" },
      { type: 'user.checks.tag.policy_evaluation.update', level: 'INFO', message: "The policy evaluation result of a subscribed tag changed" },
    ],
  },
  {
    name: 'user.alerts.compliance_violation',
    description: 'Compliance-violation alerts of tags with an alerts subscription',
    types: [
      { type: 'user.alerts.compliance_violation.opened', level: 'INFO', message: 'A subscribed tag failed its policy evaluation: a compliance-violation alert opened' },
      { type: 'user.alerts.compliance_violation.closed', level: 'INFO', message: 'A compliance-violation alert closed' },
    ],
  },
  {
    name: 'user.analysis_archive',
    description: 'What the archive transition rules moved',
    types: [
      { type: 'user.analysis_archive.rule_applied', level: 'INFO', message: 'An archive rule archived image analyses or deleted archived ones' },
    ],
  },
  {
    name: 'system.image_analysis',
    description: 'Failures talking to registries or reading images',
    types: [
      { type: 'system.image_analysis.registry_lookup_failed', level: 'ERROR', message: 'Looking up an image in its registry failed' },
      { type: 'system.image_analysis.manifest_parse_fail', level: 'ERROR', message: 'An image manifest could not be read' },
    ],
  },
  {
    name: 'system.feeds.sync',
    description: 'Vulnerability feed synchronisation',
    types: [
      { type: 'system.feeds.sync.started', level: 'INFO', message: 'Feed sync started' },
      { type: 'system.feeds.sync.completed', level: 'INFO', message: 'Feed sync completed' },
      { type: 'system.feeds.sync.failed', level: 'ERROR', message: 'Feed sync failed' },
      { type: 'system.feeds.sync.feed_completed', level: 'INFO', message: 'A feed was synced' },
      { type: 'system.feeds.sync.feed_failed', level: 'ERROR', message: 'Syncing a feed failed; its previous data is still used' },
    ],
  },
  {
    name: 'system.artifact_lifecycle',
    description: 'Runs of the artifact lifecycle policies',
    types: [{ type: 'system.artifact_lifecycle.policy_executed', level: 'INFO', message: 'An artifact lifecycle policy ran; the details list the images it deleted' }],
  },
  {
    name: 'system.repository',
    description: 'Repository watches',
    types: [{ type: 'system.repository.list_tags_fail', level: 'ERROR', message: 'Listing the tags of a watched repository failed' }],
  },
];

export const EVENT_TYPES: ReadonlyMap<string, EventTypeInfo> = new Map(EVENT_CATEGORIES.flatMap((c) => c.types.map((t) => [t.type, t])));
