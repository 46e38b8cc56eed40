// Bytes as base64 text and back (a checkpoint's quantized attention in JSON, the handed-over
// weights in sessionStorage). In chunks: spreading a whole large array into one call would
// overflow the argument limit.
export function bytesToBase64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

export function base64ToBytes(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
