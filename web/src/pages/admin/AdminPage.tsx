import { NotBuiltYet } from '../../components/NotBuiltYet';

export function AdminPage() {
  return <NotBuiltYet title="Administration" />;
}
