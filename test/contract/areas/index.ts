/**
 * Every area of the contract test; the coverage test checks that together they drive every operation once.
 *
 * Adding an operation (after `npm run codegen`, which regenerates the contract client): add one entry to the
 * `calls` of the area it belongs to, where its fixtures exist, keyed by its operationId, e.g.
 *
 *   get_system_statistics: () => ok(sdk.getSystemStatistics()),
 *   delete_service_node: (s) => ok(sdk.deleteServiceNode({ path: { name: 'api', host_id: s.hostId } })),
 *
 * `ok(...)` fails unless the answer is a 2xx; a call that can only end in an error is
 * `expectStatus(404, 'why', (s) => status(sdk.x(...)))`, and `expectAnswer(404, sdk.x(...))` adds an error probe to
 * a call. Every answer the SDK gets is checked by the harness whatever the call does with it. A new area (a new
 * file areas/<name>.ts with `defineArea`, and <name>.contract.test.ts with `runArea`) is listed here.
 */
import type { Area } from '../harness.js';
import { alertsArea } from './alerts.js';
import { applicationsArea } from './applications.js';
import { archivesArea } from './archives.js';
import { identityArea } from './identity.js';
import { imagesArea } from './images.js';
import { importsArea } from './imports.js';
import { notificationsArea } from './notifications.js';
import { oidcArea } from './oidc.js';
import { runtimeArea } from './runtime.js';
import { sourcesArea } from './sources.js';
import { ssoArea } from './sso.js';
import { systemArea } from './system.js';

export const areas: Area<any>[] = [systemArea, identityArea, imagesArea, importsArea, sourcesArea, applicationsArea, archivesArea, runtimeArea, notificationsArea, ssoArea, oidcArea, alertsArea];
