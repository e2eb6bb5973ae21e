import { NotBuiltYet } from '../../components/NotBuiltYet';

export function ReportsPage() {
  return <NotBuiltYet title="Reports" />;
}
