/** The sign-in page while signed out, the application shell while signed in. */
import { Center, Loader, Stack, Text } from '@mantine/core';
import { SessionProvider, useSession } from './components/SessionProvider';
import { AppShellLayout } from './components/AppShellLayout';
import { SignInPage } from './pages/signin/SignInPage';
import { useSsoCodeSignIn } from './pages/signin/sso-code';

function SignedInOrNot() {
  const { session, signIn } = useSession();
  const sso = useSsoCodeSignIn(signIn);
  if (sso.busy)
    return (
      <Center component="main" mih="100vh">
        <Stack align="center" role="status">
          <Loader aria-hidden />
          <Text>Signing in with single sign-on…</Text>
        </Stack>
      </Center>
    );
  return session ? <AppShellLayout /> : <SignInPage ssoError={sso.error} />;
}

export function App() {
  return (
    <SessionProvider>
      <SignedInOrNot />
    </SessionProvider>
  );
}
