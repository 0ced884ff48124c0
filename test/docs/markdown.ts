/** Reading the documentation's pages: which files, their fenced blocks, the commands of `sh` blocks, links and anchors. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dir, '..', '..');

/** Every page of documentation, relative to the repository. */
export function pages(): string[] {
  const docs = [...new Bun.Glob('docs/**/*.md').scanSync({ cwd: ROOT })].sort();
  return ['README.md', 'CHANGELOG.md', 'web/README.md', ...docs];
}

export const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

export interface Block {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  body: string[];
}

export function blocks(page: string): Block[] {
  const found: Block[] = [];
  let open: Block | null = null;
  read(page)
    .split('\n')
    .forEach((text, index) => {
      const fence = /^```(\S*)\s*$/.exec(text);
      if (open) {
        if (text.startsWith('```')) {
          found.push(open);
          open = null;
        } else open.body.push(text);
      } else if (fence) open = { page, line: index + 1, lang: fence[1]!, body: [] };
    });
  if (open) throw new Error(`${page}: the block opened at line ${(open as Block).line} is never closed`);
  return found;
}

/** The shell languages: their blocks hold commands, and every command must be run or accounted for. */
export const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

/** The text before a `#` that starts a comment (outside quotes, after a blank or at the start). */
function withoutComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

export interface Command {
  block: Block;
  /** 1-based line where the command starts. */
  line: number;
  /** The command on one line: continuations joined, comment removed. */
  text: string;
}

/** The commands of a shell block: one a line, a trailing backslash continuing it; comments and blank lines dropped. */
export function commands(block: Block): Command[] {
  const found: Command[] = [];
  let pending: { line: number; parts: string[] } | null = null;
  block.body.forEach((raw, index) => {
    const line = withoutComment(raw).trimEnd();
    const continued = line.endsWith('\\');
    const part = continued ? line.slice(0, -1) : line;
    if (!pending) {
      if (part.trim() === '') return;
      pending = { line: block.line + 1 + index, parts: [] };
    }
    pending.parts.push(part.trim());
    if (!continued) {
      found.push({ block, line: pending.line, text: pending.parts.join(' ') });
      pending = null;
    }
  });
  if (pending) throw new Error(`${block.page}:${(pending as { line: number }).line}: a command ends with a backslash and nothing after it`);
  return found;
}

/** Whitespace collapsed, for comparing a command with the list of commands run elsewhere. */
export const normal = (command: string) => command.trim().replace(/\s+/g, ' ');

/**
 * Markdown links and images of a page outside code: their targets and lines. Link text and code
 * spans may run over a line break, so the page is searched whole, with fenced blocks and code spans
 * blanked out (new lines kept, so that lines still count).
 */
export function links(page: string): Array<{ target: string; line: number }> {
  let inFence = false;
  const prose = read(page)
    .split('\n')
    .map((text) => {
      const fence = text.startsWith('```');
      if (fence) inFence = !inFence;
      return fence || inFence ? '' : text;
    })
    .join('\n')
    .replace(/`[^`]*`/g, (code) => code.replace(/[^\n]/g, ' '));
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => ({
    target: match[1]!,
    line: prose.slice(0, match.index).split('\n').length,
  }));
}

/** The anchors a page offers: GitHub's slugs of its headings (repeats numbered), and explicit `id`s. */
export function anchors(page: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const text of read(page).split('\n')) {
    if (text.startsWith('```')) inFence = !inFence;
    if (inFence) continue;
    const heading = /^#{1,6}\s+(.*)$/.exec(text);
    if (heading) {
      const slug = heading[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      found.add(count ? `${slug}-${count}` : slug);
    }
    for (const id of text.matchAll(/<a id="([^"]+)"/g)) found.add(id[1]!);
  }
  return found;
}
