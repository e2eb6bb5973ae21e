/** The transport of each endpoint kind. */
import type { DeliveryTarget, EndpointKind } from '../types.js';
import { githubChannel } from './github.js';
import { jiraChannel } from './jira.js';
import type { DeliveryChannel } from './outcome.js';
import { slackChannel } from './slack.js';
import { smtpChannel } from './smtp.js';
import { teamsChannel } from './teams.js';
import { webhookChannel } from './webhook.js';

const CHANNELS: { [K in EndpointKind]: DeliveryChannel<Extract<DeliveryTarget, { kind: K }>> } = {
  webhook: webhookChannel,
  slack: slackChannel,
  teams: teamsChannel,
  smtp: smtpChannel,
  github: githubChannel,
  jira: jiraChannel,
};

/** The channel for a kind; typed loosely because the caller holds a target of that same kind. */
export function channelFor(kind: EndpointKind): DeliveryChannel<DeliveryTarget> {
  return CHANNELS[kind] as DeliveryChannel<DeliveryTarget>;
}
