// The design tokens, declared once: one type scale, one spacing scale, radii and the colours of
// both themes, as CSS custom properties. Every element of the page adopts TOKENS (it matches
// :host in a shadow root and :root in the document), and its own styles say var(--ap-…)
// rather than a literal. The colours use light-dark(): each element takes the colour of its
// inherited `color-scheme`, so the page picks a theme by setting color-scheme on <html>
// (ui/theme.ts: the system's preference, or the reader's choice), and an embed follows the
// page it sits in (a page that says nothing is light). Text colours keep a contrast of at least
// 4.5 : 1 on their backgrounds in both themes (tests/e2e/diagram.test.mjs measures it).
// The heatmaps' colour scales (ui/colors.ts: viridis, RdBu) are not tokens: they stay the same,
// colour-blind-safe, in both themes; the paper, labels, ticks and grid around them follow the
// theme (FIGURE_STYLES, PICTURE_INK).
import { css } from 'lit';

export const TOKENS = css`
  :root,
  :host {
    /* Type: one scale, ratio ~1.125 around 1rem. */
    --ap-font: system-ui, -apple-system, 'Segoe UI', sans-serif;
    --ap-mono: ui-monospace, 'SFMono-Regular', Menlo, monospace;
    --ap-text-xs: 0.75rem;
    --ap-text-sm: 0.85rem;
    --ap-text-md: 1rem;
    --ap-text-lg: 1.125rem;
    --ap-text-xl: 1.4rem;
    --ap-leading: 1.45;
    /* Spacing: quarter-rem steps. */
    --ap-space-1: 0.25rem;
    --ap-space-2: 0.5rem;
    --ap-space-3: 0.75rem;
    --ap-space-4: 1rem;
    --ap-space-5: 1.5rem;
    --ap-space-6: 2rem;
    --ap-radius-sm: 4px;
    --ap-radius: 6px;
    --ap-radius-lg: 10px;
    --ap-control-height: 2rem;
    /* Colours: light-dark(light theme, dark theme). */
    --ap-bg: light-dark(#ffffff, #121417);
    --ap-surface: light-dark(#f5f6f8, #1c1f24);
    --ap-surface-2: light-dark(#eceef2, #262a31);
    --ap-border: light-dark(#c4c9d1, #444b55);
    --ap-border-strong: light-dark(#8a919c, #6e7783);
    --ap-text: light-dark(#16181c, #e7e9ec);
    --ap-text-muted: light-dark(#4d535c, #adb4be);
    --ap-accent: light-dark(#1a5fcc, #8ab4f8);
    --ap-accent-soft: light-dark(#e8f0fd, #1d2a40);
    --ap-on-accent: light-dark(#ffffff, #0c1524);
    --ap-focus: light-dark(#1a73e8, #8ab4f8);
    --ap-danger: light-dark(#b00020, #ff8f99);
    --ap-danger-soft: light-dark(#fdecee, #3a1a1e);
    --ap-warn: light-dark(#6b4e00, #f0cd6a);
    --ap-warn-soft: light-dark(#fff8e1, #2c2611);
    --ap-warn-border: light-dark(#e0c060, #7a6424);
    --ap-ok: light-dark(#0a6b2b, #7ed69b);
    --ap-ok-soft: light-dark(#eef7ee, #16281b);
    --ap-ok-border: light-dark(#5a9e5a, #4f8a5a);
    --ap-norm-soft: light-dark(#f3eefb, #261f33);
    --ap-norm-border: light-dark(#8a6bbf, #9d83cc);
    /* The edited token and the active cell (the heatmaps draw the same pink). */
    --ap-highlight: light-dark(#c8104d, #ff6f9c);
    --ap-shadow: light-dark(0 1px 2px #0002, 0 1px 2px #0008);
  }
`;

/**
 * Pictures (heatmap, line view, matrix, thumbnails, curves, the Shapes and Values views, the pretrained loader) sit on
 * the theme's paper with the theme's text: dark paper and light labels in the dark theme. Only the colours of the
 * cells themselves (ui/colors.ts) stay the same in both.
 */
export const FIGURE_STYLES = css`
  ap-heatmap,
  ap-line-view,
  ap-matrix,
  ap-overview,
  ap-curves,
  ap-shape-flow,
  ap-tensor-view,
  ap-pretrained-loader {
    background: var(--ap-bg);
    color: var(--ap-text);
    border-radius: var(--ap-radius-sm);
    /* A rim of paper without changing the box the picture measures to fit. */
    box-shadow: 0 0 0 var(--ap-space-1) var(--ap-bg);
  }
`;

/**
 * The theme's ink for the parts of an SVG picture around its cells, for a picture's shadow styles. The SVG itself
 * names light colours in attributes (the paper white, the labels near-black): an exported copy, drawn off the page
 * where these rules do not reach, stays a light paper figure; on screen these rules win over the attributes.
 */
export const PICTURE_INK = css`
  .pic-paper {
    fill: var(--ap-bg);
  }
  .pic-ink {
    fill: var(--ap-text);
  }
  .pic-ink-muted {
    fill: var(--ap-text-muted);
  }
  /* The gaps between cells: the colour of the paper. */
  .pic-rim {
    stroke: var(--ap-bg);
  }
  .pic-grid {
    stroke: var(--ap-surface-2);
  }
  .pic-frame {
    stroke: var(--ap-border);
  }
  .pic-stroke-ink {
    stroke: var(--ap-text);
  }
`;

/** Puts the tokens on the document (:root) once: the page's own HTML (header, body) uses them too. */
export function adoptTokens(doc: Document = document): void {
  const sheet = TOKENS.styleSheet;
  if (!sheet || doc.adoptedStyleSheets.includes(sheet)) return;
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
}
