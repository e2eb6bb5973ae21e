import { NotBuiltYet } from '../../components/NotBuiltYet';

export function DashboardPage() {
  return <NotBuiltYet title="Dashboard" />;
}
