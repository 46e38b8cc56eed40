// How the page writes a number of things: "1 head", "4 heads".

export const count = (n: unknown, noun: string) => `${String(n)} ${noun}${n === 1 ? '' : 's'}`;
