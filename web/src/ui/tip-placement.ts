// Where a heatmap's tooltip goes: beside the explained cell, inside the part of the heatmap's
// scroll box that is on screen, so it never spills over the next heatmap and is never cut
// off by the box's edge (a tip under the last row used to be). Plain numbers in, so it is
// tested without a browser.

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(v, hi));

/**
 * The tip's top-left corner, for a tip of `tip`'s size explaining `cell`, kept inside `area` (all in one coordinate
 * space): right of the cell if it fits, else left of it, else below (or above) it; shifted along the other axis to stay
 * inside. A tip larger than the area starts at its top-left corner.
 */
export function placeTip(
  cell: Box,
  tip: { width: number; height: number },
  area: Box,
  gap = 4,
): { left: number; top: number } {
  const right = area.left + area.width,
    bottom = area.top + area.height;
  const alongRows = clamp(cell.top, area.top, Math.max(area.top, bottom - tip.height));
  if (cell.left + cell.width + gap + tip.width <= right) return { left: cell.left + cell.width + gap, top: alongRows };
  if (cell.left - gap - tip.width >= area.left) return { left: cell.left - gap - tip.width, top: alongRows };
  const left = clamp(cell.left, area.left, Math.max(area.left, right - tip.width));
  if (cell.top + cell.height + gap + tip.height <= bottom) return { left, top: cell.top + cell.height + gap };
  if (cell.top - gap - tip.height >= area.top) return { left, top: cell.top - gap - tip.height };
  return { left, top: clamp(cell.top + cell.height + gap, area.top, Math.max(area.top, bottom - tip.height)) };
}
