/** Shows a failure from the API as it is (message and request id), so no error is swallowed. */
import { Alert } from '@mantine/core';
import { describeError } from '../api/errors';

export function ApiErrorAlert({ error, title = 'The request failed' }: { error: unknown; title?: string }) {
  if (error === undefined || error === null) return null;
  return (
    <Alert color="red" title={title} role="alert">
      {describeError(error)}
    </Alert>
  );
}
