import { runArea } from './harness.js';
import { imagesArea } from './areas/images.js';

runArea(imagesArea);
