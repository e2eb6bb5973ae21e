/**
 * The account the interface acts in. Administrators and users with roles in several accounts pick one; the API
 * client then sends it as x-anchore-account (upstream's account-override header).
 */
import { Alert, Select, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { switchableAccounts } from '../api/auth';
import { describeError } from '../api/errors';
import { useApi, useSession } from './SessionProvider';

export function AccountSwitcher() {
  const { api, session } = useApi();
  const { switchAccount } = useSession();
  const [accounts, setAccounts] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    switchableAccounts(api, session).then(
      (names) => live && setAccounts(names),
      (failure) => live && setError(`Could not list your accounts: ${describeError(failure)}`),
    );
    return () => {
      live = false;
    };
    // Listed once per signed-in user; switching accounts does not change what they may switch to.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [session.authorization]);

  if (error)
    return (
      <Alert color="red" role="alert" py={4}>
        {error}
      </Alert>
    );
  if (!accounts || accounts.length < 2) return <Text size="sm">Account: {session.account}</Text>;
  return (
    <Select
      label="Account"
      size="xs"
      w={200}
      data={accounts}
      value={session.account}
      allowDeselect={false}
      searchable={accounts.length > 8}
      onChange={(value) => value && switchAccount(value)}
      styles={{ root: { display: 'flex', alignItems: 'center', gap: 8 } }}
    />
  );
}
