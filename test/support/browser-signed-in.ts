/** For a describe block of browser tests: the interface in Chromium, signed in as admin before them, closed after. */
import { afterAll, beforeAll } from 'vitest';
import { launchSignedIn, type UiBrowser } from './browser-ui.js';

/** `serviceUrl` is read when the browser launches (the server starts in an outer beforeAll). */
export function signedInUi(serviceUrl: () => string): () => UiBrowser {
  let ui: UiBrowser | undefined;
  beforeAll(async () => {
    ui = await launchSignedIn(serviceUrl());
  });
  afterAll(async () => {
    await ui?.close();
  });
  return () => {
    if (!ui) throw new Error('the browser did not launch');
    return ui;
  };
}
