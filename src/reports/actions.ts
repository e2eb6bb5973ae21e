/**
 * RBAC actions of the GraphQL reporting API. REST operations declare theirs in the spec (x-authz-action); the
 * GraphQL API is outside that spec, so its actions are listed here and added to the role catalog.
 */
export const VIEW_REPORTS = 'viewReports';
export const MANAGE_SCHEDULED_QUERIES = 'manageScheduledQueries';

export const REPORT_ACTIONS: readonly string[] = [VIEW_REPORTS, MANAGE_SCHEDULED_QUERIES];
