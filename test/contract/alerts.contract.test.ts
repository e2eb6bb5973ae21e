import { runArea } from './harness.js';
import { alertsArea } from './areas/alerts.js';

runArea(alertsArea);
