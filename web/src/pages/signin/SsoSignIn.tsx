/** The sign-in page's single sign-on choices: one button per provider the server offers (none: nothing shown). */
import { Alert, Button, Divider, Stack } from '@mantine/core';
import { useEffect, useState } from 'react';
import { ssoSignInOptions } from '../../api/auth';
import { describeError } from '../../api/errors';

type Options = Awaited<ReturnType<typeof ssoSignInOptions>>;

/** Where the login should return: the page the user opened, when it is a plain path of the interface. */
function returnTo(): string {
  const path = window.location.pathname;
  return /^\/ui\/[A-Za-z0-9._~/-]*$/.test(path) && !/\/\.\.?(\/|$)|\/\//.test(path) ? path : '/ui/';
}

export function SsoSignIn() {
  const [options, setOptions] = useState<Options>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    ssoSignInOptions().then(
      (found) => current && setOptions(found),
      (failure: unknown) => current && setError(describeError(failure)),
    );
    return () => {
      current = false;
    };
  }, []);

  if (error)
    return (
      <Alert color="red" role="alert" title="Single sign-on is unavailable">
        {error}
      </Alert>
    );
  if (options.length === 0) return null;
  const back = encodeURIComponent(returnTo());
  return (
    <Stack gap="xs" component="section" aria-label="Single sign-on">
      <Divider label="or sign in with single sign-on" labelPosition="center" />
      {options.map((option) => (
        // A navigation, not a fetch: the provider's pages take over the window until it sends the browser back.
        <Button key={`${option.protocol}:${option.name}`} component="a" variant="default" href={`${option.login_path}?return_to=${back}`}>
          Sign in with {option.name}
        </Button>
      ))}
    </Stack>
  );
}
