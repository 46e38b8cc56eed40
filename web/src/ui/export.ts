// Downloads: a picture (SVG element) as SVG or PNG, the trace as JSON.
import type { Trace } from 'attention-playground';

function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function svgText(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.removeAttribute('tabindex');
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy);
}

export function exportSvg(svg: SVGSVGElement, filename: string): void {
  download(new Blob([svgText(svg)], { type: 'image/svg+xml' }), filename);
}

/**
 * How much to enlarge a picture of this size for PNG: 2x for sharp text, less when that would
 * pass what a canvas can hold (Chromium: 16384 px a side, about 268 million pixels), as a
 * 12 x 12 heads overview of a long text would.
 */
export function pngScale(width: number, height: number): number {
  if (width <= 0 || height <= 0) return 2;
  return Math.min(2, 16_000 / width, 16_000 / height, Math.sqrt(120_000_000 / (width * height)));
}

/** Renders the SVG into a canvas (at 2x, or less for a huge picture) and downloads it as PNG. */
export async function exportPng(svg: SVGSVGElement, filename: string): Promise<void> {
  // Size: the width and height attributes, or the viewBox of a plot sized by CSS.
  const box = svg.viewBox?.baseVal;
  const width = Number(svg.getAttribute('width')) || box?.width || 0,
    height = Number(svg.getAttribute('height')) || box?.height || 0;
  const url = URL.createObjectURL(new Blob([svgText(svg)], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    const scale = pngScale(width, height);
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const ctx = canvas.getContext('2d')!;
    ctx.scale(scale, scale);
    ctx.drawImage(image, 0, 0, width, height);
    const blob = await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'),
    );
    download(blob, filename);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** The trace as JSON: typed arrays become arrays, −∞ becomes null. */
export function traceJson(trace: Trace): string {
  return JSON.stringify({
    ...trace,
    stages: trace.stages.map((s) => ({ ...s, data: Array.from(s.data, (v) => (Number.isFinite(v) ? v : null)) })),
  });
}

export function exportJson(trace: Trace, filename: string): void {
  download(new Blob([traceJson(trace)], { type: 'application/json' }), filename);
}

/** Downloads bytes (e.g. a .safetensors file). */
export function exportBytes(bytes: Uint8Array, filename: string): void {
  download(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }), filename);
}

/** Downloads text (CSV, JSON). */
export function exportText(text: string, type: string, filename: string): void {
  download(new Blob([text], { type }), filename);
}
