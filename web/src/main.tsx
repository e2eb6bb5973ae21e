/** Entry point: Mantine (with the per-response style nonce the CSP allows), the router under /ui, the app. */
import './mantine.css';
import './global.css';
import { MantineProvider } from '@mantine/core';
import { setNonce } from 'get-nonce';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App } from './App';
import { cssVariablesResolver, theme } from './theme';

/** The nonce the server put in the page for this response; Mantine's <style> tags must carry it. */
const styleNonce = document.querySelector<HTMLMetaElement>('meta[name="vigil-style-nonce"]')?.content ?? '';
// Modals lock the page's scrolling with react-remove-scroll, whose injected <style> takes its nonce from get-nonce.
setNonce(styleNonce);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} getStyleNonce={() => styleNonce}>
      <BrowserRouter basename="/ui">
        <App />
      </BrowserRouter>
    </MantineProvider>
  </StrictMode>,
);
