// A prompt written as chat turns, for an instruct checkpoint whose tokenizer carries a chat
// template: one turn per "role: text" line (system, user or assistant); lines that start
// with no role continue the turn before, and text before the first role is the user's (so
// plain text becomes one user turn). The worker renders the turns with the model's
// template and tokenizes what it renders. No DOM: Vitest tests it in Node.

export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ChatTurn {
  role: ChatRole;
  content: string;
}

const TURN_START = new RegExp(`^(${CHAT_ROLES.join('|')})\\s*:[ \\t]?(.*)$`, 'i');

/** An example for the text box, in the form parseTurns reads. */
export const CHAT_EXAMPLE = 'system: You are a helpful assistant.\nuser: What does a cat sit on?';

/** The turns of `text`, or a message for people saying what is wrong with it. */
export function parseTurns(text: string): { turns: ChatTurn[] } | { error: string } {
  const turns: ChatTurn[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = TURN_START.exec(lines[i]);
    if (start) turns.push({ role: start[1].toLowerCase() as ChatRole, content: start[2] });
    else if (turns.length > 0) turns[turns.length - 1].content += `\n${lines[i]}`;
    else if (lines[i].trim() !== '') turns.push({ role: 'user', content: lines[i] });
  }
  for (const turn of turns) turn.content = turn.content.trim();
  if (turns.length === 0) return { error: `Write a turn first, e.g. \u201cuser: What does a cat sit on?\u201d.` };
  const empty = turns.findIndex((t) => t.content === '');
  if (empty >= 0) return { error: `Turn ${empty + 1} (${turns[empty].role}) is empty.` };
  return { turns };
}
