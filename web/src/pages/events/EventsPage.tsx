import { NotBuiltYet } from '../../components/NotBuiltYet';

export function EventsPage() {
  return <NotBuiltYet title="Events and notifications" />;
}
