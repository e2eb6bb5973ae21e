import { runArea } from './harness.js';
import { applicationsArea } from './areas/applications.js';

runArea(applicationsArea);
