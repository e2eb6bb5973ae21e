import { runArea } from './harness.js';
import { identityArea } from './areas/identity.js';

runArea(identityArea);
