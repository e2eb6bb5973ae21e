import { runArea } from './harness.js';
import { ssoArea } from './areas/sso.js';

runArea(ssoArea);
