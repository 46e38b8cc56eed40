// What a download that got no answer at all means. fetch() rejects with a bare TypeError
// ("Failed to fetch" in Chromium, "NetworkError when attempting to fetch resource." in
// Firefox, "Load failed" in Safari) both when the network is down or blocked and when the
// server answered without allowing this page's cross-origin request: the browser does not
// tell the two apart, so the message names both, and the URL to try by hand.

/** The message for a request to `url` that failed without an HTTP status (`reason`: the browser's own words). */
export function unreachable(url: string, reason: string): string {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // not a URL: named as it was typed
  }
  return (
    `Could not reach ${url} (the browser says \u201c${reason.replace(/\.$/, '')}\u201d). ` +
    `Most likely this computer is offline or its network blocks ${host}, or ${host} refused this page\u2019s ` +
    `cross-origin request (it does not allow downloads from other sites); opening the URL in a new tab tells which.`
  );
}

/**
 * The engine's words for a hub download that got no answer ('could not download URL: reason', code 'network', no
 * HTTP status) made into unreachable()'s; any other message as it was.
 */
export function explainDownloadFailure(message: string): string {
  const failed = /^could not download (\S+): (.*)$/is.exec(message);
  if (!failed || /^HTTP \d+/.test(failed[2])) return message;
  return unreachable(failed[1], failed[2]);
}
