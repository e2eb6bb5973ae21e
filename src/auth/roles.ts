/**
 * Built-in roles. Each is defined by which actions of the spec's catalog (the `x-authz-action` values) it
 * grants, so a role picks up the actions of new operations without a second list to keep in step.
 * Actions in SYSTEM_ACTIONS are never granted by a role: only users of the admin account may perform them.
 */
export const SYSTEM_ACTIONS: ReadonlySet<string> = new Set([
  'listAccounts',
  'createAccount',
  'updateAccount',
  'deleteAccount',
  'listAllUsers',
  // Feeds are shared by every account: only administrators sync, upload, enable or delete them.
  'updateFeeds',
  // Enabling or disabling a notification endpoint kind affects every account.
  'updateNotificationEndpoint',
  // The nodes of the deployment and their service registrations.
  'listServices',
  'getService',
  'deleteService',
  // Counts over every account.
  'getSystemStatistics',
  // SAML identity providers decide who signs in to any account.
  'listSamlIdps',
  'manageSamlIdps',
  // So do OpenID Connect providers.
  'listOidcProviders',
  'manageOidcProviders',
  // The running node's logging level and the deployment's configured limits.
  'updateLoggingLevel',
  'getResourceLimits',
  // The runtime settings apply to every account and node.
  'getSystemConfig',
  'updateSystemConfig',
  'unsetSystemConfig',
  // Package corrections change the findings of every account.
  'addCorrection',
  'updateCorrection',
  'deleteCorrection',
  // Artifact lifecycle policies delete images of every account.
  'listArtifactLifecyclePolicies',
  'createArtifactLifecyclePolicy',
  'getArtifactLifecyclePolicy',
  'updateArtifactLifecyclePolicy',
  'deleteArtifactLifecyclePolicy',
  // User groups span accounts (a group holds roles in any of them), so only administrators manage them.
  'listUserGroups',
  'createUserGroup',
  'getUserGroup',
  'updateUserGroup',
  'deleteUserGroup',
  'getUserGroupRoles',
  'addUserGroupRole',
  'deleteUserGroupRole',
  'getUserGroupUsers',
  'addUserGroupUser',
  'deleteUserGroupUser',
]);

/** Managing users, their keys and role memberships inside an account. */
const USER_ADMIN_ACTIONS = new Set([
  'listUsers',
  'listAccountUsersWithRoles',
  'createUser',
  'getUser',
  'updateUser',
  'deleteUser',
  'listApiKeys',
  'createApiKey',
  'getApiKey',
  'updateApiKey',
  'deleteApiKey',
  'listRoleMembers',
  'createRoleMember',
  'deleteRoleMember',
]);

const isSelfService = (a: string) => a.startsWith('self');
const isRead = (a: string) => /^(get|list|view)[A-Z]/.test(a);
const ALWAYS = new Set(['getAccount', 'listRoles', 'getRole']);

export interface RoleDefinition {
  name: string;
  description: string;
  grants(action: string): boolean;
}

export const BUILTIN_ROLES: readonly RoleDefinition[] = [
  {
    name: 'read-only',
    description: 'Read every resource of the account; change nothing.',
    grants: (a) => isSelfService(a) || ALWAYS.has(a) || (isRead(a) && !USER_ADMIN_ACTIONS.has(a)),
  },
  {
    name: 'read-write',
    description: 'Read and change every resource of the account, except its users and role memberships.',
    grants: (a) => isSelfService(a) || ALWAYS.has(a) || !USER_ADMIN_ACTIONS.has(a),
  },
  {
    name: 'full-control',
    description: 'Everything within the account, including its users and role memberships.',
    grants: () => true,
  },
  {
    name: 'account-user-admin',
    description: "Manage the account's users, their credentials and API keys, and their roles.",
    grants: (a) => isSelfService(a) || ALWAYS.has(a) || USER_ADMIN_ACTIONS.has(a),
  },
  {
    name: 'image-analyzer',
    description: 'Add images for analysis, import SBOMs, and read images and their evaluations.',
    grants: (a) =>
      isSelfService(a) || ALWAYS.has(a) || ['createImage', 'importImage', 'getImage', 'listImages', 'getImageEvaluation'].includes(a),
  },
  {
    name: 'policy-editor',
    description: 'Create, change and delete policies; read images and their evaluations.',
    grants: (a) =>
      isSelfService(a) || ALWAYS.has(a) || /Polic(y|ies)$/.test(a) || ['getImage', 'listImages', 'getImageEvaluation'].includes(a),
  },
  {
    name: 'report-admin',
    description: 'Read reports and manage scheduled reports.',
    grants: (a) => isSelfService(a) || ALWAYS.has(a) || /Reports?$|ScheduledQuer/.test(a),
  },
];

/** The actions a role grants, out of the catalog of actions the spec names. */
export function expandRole(role: RoleDefinition, catalog: readonly string[]): string[] {
  return catalog.filter((a) => !SYSTEM_ACTIONS.has(a) && role.grants(a)).sort();
}
