/** An API failure shown where the data would be: what was being done, and the server's message as it is. */
import { Alert } from '@mantine/core';
import { describeError } from '../api/errors';

export function ApiErrorAlert({ error, action }: { error: unknown; action: string }) {
  return (
    <Alert color="red" role="alert" title={`Could not ${action}`}>
      {describeError(error)}
    </Alert>
  );
}
