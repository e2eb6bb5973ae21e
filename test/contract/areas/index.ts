/** Every area of the contract test; the coverage test checks that together they drive every operation once. */
import type { Area } from '../harness.js';
import { identityArea } from './identity.js';
import { imagesArea } from './images.js';
import { importsArea } from './imports.js';
import { notificationsArea } from './notifications.js';
import { runtimeArea } from './runtime.js';
import { systemArea } from './system.js';

export const areas: Area<any>[] = [systemArea, identityArea, imagesArea, importsArea, runtimeArea, notificationsArea];
