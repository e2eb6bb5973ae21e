import { runArea } from './harness.js';
import { archivesArea } from './areas/archives.js';

runArea(archivesArea);
