/** Every operation's handler; the Handlers type makes a missing one a compile error. */
import type { BodyChecks, Handlers } from '../server/handler-types.js';
import { alertHandlers } from './alerts.js';
import { archiveHandlers } from './archives.js';
import { applicationHandlers } from './applications.js';
import { artifactLifecycleHandlers } from './artifact-lifecycle.js';
import { actionHandlers } from './actions.js';
import { correctionHandlers } from './corrections.js';
import { eventHandlers } from './events.js';
import { feedHandlers } from './feeds.js';
import { identityHandlers } from './identity.js';
import { imageContentHandlers } from './image-content.js';
import { importHandlers } from './imports.js';
import { inventoryHandlers } from './inventories.js';
import { notificationHandlers } from './notifications.js';
import { onetimeHandlers } from './onetime.js';
import { imageHandlers } from './images.js';
import { policyBodyChecks, policyHandlers } from './policies.js';
import { rbacHandlers } from './rbac.js';
import { registryHandlers } from './registries.js';
import { relationshipHandlers } from './relationships.js';
import { reportHandlers } from './reports.js';
import { oidcHandlers } from './oidc.js';
import { samlHandlers } from './saml.js';
import { sourceImportHandlers } from './source-imports.js';
import { sourceHandlers } from './sources.js';
import { ssoHandlers } from './sso.js';
import { subscriptionHandlers } from './subscriptions.js';
import { summaryHandlers } from './summaries.js';
import { systemHandlers } from './system.js';
import { systemConfigurationHandlers } from './system-configurations.js';
import { userGroupHandlers } from './user-groups.js';
import { userManagementHandlers } from './user-management.js';
import { vulnerabilityHandlers } from './vulnerabilities.js';

export const handlers: Handlers = {
  ...systemHandlers,
  ...systemConfigurationHandlers,
  ...artifactLifecycleHandlers,
  ...actionHandlers,
  ...identityHandlers,
  ...userManagementHandlers,
  ...userGroupHandlers,
  ...rbacHandlers,
  ...samlHandlers,
  ...oidcHandlers,
  ...ssoHandlers,
  ...imageHandlers,
  ...imageContentHandlers,
  ...archiveHandlers,
  ...registryHandlers,
  ...eventHandlers,
  ...summaryHandlers,
  ...importHandlers,
  ...sourceImportHandlers,
  ...sourceHandlers,
  ...relationshipHandlers,
  ...applicationHandlers,
  ...subscriptionHandlers,
  ...alertHandlers,
  ...feedHandlers,
  ...vulnerabilityHandlers,
  ...correctionHandlers,
  ...onetimeHandlers,
  ...policyHandlers,
  ...inventoryHandlers,
  ...reportHandlers,
  ...notificationHandlers,
};

/** Checks of bodies beyond the schema, which also run when the schema refuses a body (see BodyCheck). */
export const bodyChecks: BodyChecks = { ...policyBodyChecks };
