// The width a host element is given, measured as it changes (a ResizeObserver), for the drawings that fit their
// box. The new width is handed over in the next animation frame, not inside the observer's callback: a drawing
// redrawn in the callback can resize other observed elements in the same frame, which browsers report as the error
// "ResizeObserver loop completed with undelivered notifications" (Firefox sends it to window.onerror).

/** Calls `onWidth` with the host's content width (whole px) whenever it changes; returns the disconnect. */
export function observeWidth(host: Element, onWidth: (width: number) => void): () => void {
  if (typeof ResizeObserver !== 'function') return () => {};
  let frame = 0;
  let latest = -1;
  const observer = new ResizeObserver(([entry]) => {
    latest = Math.floor(entry.contentRect.width);
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      onWidth(latest);
    });
  });
  observer.observe(host);
  return () => {
    observer.disconnect();
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
  };
}
