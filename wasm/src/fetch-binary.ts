/** Reads a .wasm in the browser. */
export async function fetchBinary(url: URL): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url.href}: HTTP ${response.status}`);
  return response.arrayBuffer();
}
