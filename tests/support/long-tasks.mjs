// Main-thread tasks of 50 ms or more (the Long Tasks API) in a Playwright page, each with the phase
// it started in (the last markPhase before it), so that a failure says which action's work blocked
// the page rather than only how long.

// buffered: also the tasks before the observer (from the page's first script on only: on an open
// page they would arrive after a count taken right after install).
function install(buffered) {
  if (window.longTasks) return;
  window.longTasks = []; // { ms, start }
  window.longTaskPhases = [[0, 'page load']]; // [performance.now(), name], in order
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.longTasks.push({ ms: e.duration, start: e.startTime });
  }).observe({ type: 'longtask', buffered });
}

// From the page's first script on (before goto), or from now on (atLoad false: an open page).
export async function watchLongTasks(page, { atLoad = true } = {}) {
  if (atLoad) await page.addInitScript(install, true);
  else await page.evaluate(install, false);
}

export async function markPhase(page, name) {
  await page.evaluate((n) => window.longTaskPhases.push([performance.now(), n]), name);
}

// How many long tasks so far (a start for longTasksSince).
export const longTaskCount = (page) => page.evaluate(() => window.longTasks.length);

// The long tasks from the from-th on, as { ms, phase }.
export function longTasksSince(page, from = 0) {
  return page.evaluate(
    (first) =>
      window.longTasks.slice(first).map(({ ms, start }) => {
        const phase = window.longTaskPhases.filter(([at]) => at <= start).pop();
        return { ms: Math.round(ms), phase: phase[1] };
      }),
    from,
  );
}

export const describeLongTasks = (tasks) => tasks.map(({ ms, phase }) => `${ms} ms during "${phase}"`).join(', ');
