import { runArea } from './harness.js';
import { runtimeArea } from './areas/runtime.js';

runArea(runtimeArea);
