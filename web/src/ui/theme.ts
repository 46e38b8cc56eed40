// The page's theme: the system's preference (prefers-color-scheme) until the reader presses the
// theme button, then their choice, kept in localStorage for the next visit. The theme is the
// `color-scheme` of <html>, which every element inherits (ui/tokens.ts picks its colours from it).
const KEY = 'attention-playground-theme';
const DARK = '(prefers-color-scheme: dark)';

export type Theme = 'light' | 'dark';

function stored(): Theme | null {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null; // storage refused (a private window, a sandboxed frame): follow the system
  }
}

/** The theme in effect on `root`: the one chosen there, else the reader's stored choice, else the system's. */
export function currentTheme(root: HTMLElement = document.documentElement): Theme {
  const chosen = root.style.colorScheme;
  if (chosen === 'light' || chosen === 'dark') return chosen;
  return stored() ?? (matchMedia(DARK).matches ? 'dark' : 'light');
}

/** Applies the theme to `root` and makes `button` (aria-pressed = dark) switch it and remember the choice. */
export function setUpTheme(
  root: HTMLElement = document.documentElement,
  button: HTMLButtonElement | null = null,
): void {
  const show = () => {
    const theme = currentTheme(root);
    root.dataset.theme = theme;
    button?.setAttribute('aria-pressed', String(theme === 'dark'));
  };
  // No choice: both, so the system decides (and a change of the system's setting shows at once).
  root.style.colorScheme = stored() ?? 'light dark';
  show();
  matchMedia(DARK).addEventListener('change', show);
  button?.addEventListener('click', () => {
    const next: Theme = currentTheme(root) === 'dark' ? 'light' : 'dark';
    root.style.colorScheme = next;
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // not kept for the next visit, but switched for this one
    }
    show();
  });
}
