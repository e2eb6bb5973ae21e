/**
 * Mantine's theme, adjusted for contrast (WCAG AA, checked by axe in the browser tests): the primary colour's
 * darker shade under white text, and dimmed text one shade darker than Mantine's default.
 */
import { createTheme, type CSSVariablesResolver } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 8 },
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
});

/** Text on the "light" variants (active links, alerts, badges): Mantine's shade is below 4.5:1 on their tint. */
const LIGHT_VARIANT_TEXT: Record<string, string> = Object.fromEntries([
  ...['blue', 'grape', 'violet', 'indigo', 'pink'].map((c) => [`--mantine-color-${c}-light-color`, `var(--mantine-color-${c}-9)`]),
  // These hues' darkest shade is still below 4.5:1 on their own tint (3.7:1 for a green badge): near-black text.
  ...['green', 'teal', 'cyan', 'yellow', 'orange', 'lime', 'gray'].map((c) => [`--mantine-color-${c}-light-color`, 'var(--mantine-color-dark-7)']),
  // Red's shade 9 is 4.48:1 on its tint: a shade darker than Mantine has.
  ['--mantine-color-red-light-color', '#a61b1b'],
]);

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-placeholder': 'var(--mantine-color-gray-7)',
    // Field errors (red 6 by default, 3.3:1 on white).
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    ...LIGHT_VARIANT_TEXT,
  },
  dark: {},
});
