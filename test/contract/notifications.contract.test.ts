import { runArea } from './harness.js';
import { notificationsArea } from './areas/notifications.js';

runArea(notificationsArea);
