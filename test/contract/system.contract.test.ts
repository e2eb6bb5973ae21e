import { runArea } from './harness.js';
import { systemArea } from './areas/system.js';

runArea(systemArea);
