import { runArea } from './harness.js';
import { importsArea } from './areas/imports.js';

runArea(importsArea);
