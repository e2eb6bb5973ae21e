/** Awaiting the notification dispatcher of an in-process test server. */
import type { SettledNotification } from '../../src/notifications/dispatcher.js';
import type { TestServer } from './server.js';

/** The next notification the server's dispatcher settles (delivered or failed) that satisfies the predicate. */
export function nextSettled(server: TestServer, predicate: (s: SettledNotification) => boolean = () => true): Promise<SettledNotification> {
  const dispatcher = server.running.services.notifications.dispatcher;
  return new Promise((resolve) => {
    const listener = (s: SettledNotification) => {
      if (!predicate(s)) return;
      dispatcher.off('settled', listener);
      resolve(s);
    };
    dispatcher.on('settled', listener);
  });
}
