/** Reports: the saved (scheduled) queries, one query with its executions, and an execution's result. */
import { Route, Routes } from 'react-router-dom';
import { NotBuiltYet } from '../../components/NotBuiltYet';
import { ExecutionResultPage } from './ExecutionResultPage';
import { SavedQueriesPage } from './SavedQueriesPage';
import { SavedQueryPage } from './SavedQueryPage';

export function ReportsPage() {
  return (
    <Routes>
      <Route index element={<SavedQueriesPage />} />
      <Route path=":uuid" element={<SavedQueryPage />} />
      <Route path=":uuid/executions/:executionUuid" element={<ExecutionResultPage />} />
      <Route path="*" element={<NotBuiltYet title="Page not found" />} />
    </Routes>
  );
}
