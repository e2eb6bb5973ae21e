import { runArea } from './harness.js';
import { sourcesArea } from './areas/sources.js';

runArea(sourcesArea);
