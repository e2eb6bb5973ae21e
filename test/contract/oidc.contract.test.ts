import { runArea } from './harness.js';
import { oidcArea } from './areas/oidc.js';

runArea(oidcArea);
