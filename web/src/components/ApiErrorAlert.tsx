/**
 * An API failure shown where the data would be, with the server's message as it is, so no error is swallowed.
 * Name the failed step with `action` ("load the feeds" → "Could not load the feeds") or give a whole `title`.
 */
import { Alert } from '@mantine/core';
import { describeError } from '../api/errors';

export function ApiErrorAlert({ error, action, title }: { error: unknown; action?: string; title?: string }) {
  if (error === undefined || error === null) return null;
  return (
    <Alert color="red" role="alert" title={title ?? (action ? `Could not ${action}` : 'The request failed')}>
      {describeError(error)}
    </Alert>
  );
}
