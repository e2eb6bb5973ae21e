/** The sign-in page while signed out, the application shell while signed in. */
import { SessionProvider, useSession } from './components/SessionProvider';
import { AppShellLayout } from './components/AppShellLayout';
import { SignInPage } from './pages/signin/SignInPage';

function SignedInOrNot() {
  const { session } = useSession();
  return session ? <AppShellLayout /> : <SignInPage />;
}

export function App() {
  return (
    <SessionProvider>
      <SignedInOrNot />
    </SessionProvider>
  );
}
