import fs from 'node:fs';
import path from 'node:path';

/** The reader guides: each has a table of contents and is written for one reader's task. */
export const GUIDES = [
  'docs/studios.md',
  'docs/moderators.md',
  'docs/compliance.md',
  'docs/operators.md',
  'docs/contributors.md',
  'docs/linked-accounts.md',
] as const;

/** Every Markdown page of the documentation: the README and everything under docs/. */
export const PAGES = [
  'README.md',
  ...fs
    .readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/**
 * The pages whose shell blocks test/integration/docs-examples.test.ts runs, in a reader's order: every
 * page with a block not marked illustrative is one of them (test/unit/docs/guides.test.ts holds it).
 */
export const RUN_PAGES = [
  'README.md',
  'docs/studios.md',
  'docs/moderators.md',
  'docs/compliance.md',
  'docs/operators.md',
] as const;

export interface ShellBlock {
  /** The words after `sh` in the fence's info string: `illustrative`, `stopped`, or none. */
  marks: string[];
  code: string;
  line: number;
}

/** The lines outside fenced code, with their numbers (1-based). */
function prose(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fence = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fence = !fence;
    else if (!fence) out.push({ line, n: i + 1 });
  });
  return out;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

export interface Heading {
  level: number;
  text: string;
  anchor: string;
}

/** The page's headings, outside code, each with its anchor (a repeated one gets -1, -2, ...). */
export function headings(text: string): Heading[] {
  const seen = new Map<string, number>();
  const out: Heading[] = [];
  for (const { line } of prose(text)) {
    const m = /^(#{1,6}) (.+)$/.exec(line);
    if (!m) continue;
    const base = slug(m[2]!);
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    out.push({ level: m[1]!.length, text: m[2]!, anchor: k ? `${base}-${k}` : base });
  }
  return out;
}

/** Links to this repository's files and headings: `[text](target)` outside code, not http(s). */
export function localLinks(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  for (const { line, n } of prose(text))
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g))
      if (!/^[a-z]+:/.test(m[1]!)) out.push({ target: m[1]!, line: n });
  return out;
}

/** The shell blocks of a page, in order, with the marks of their info string. */
export function shellBlocks(text: string): ShellBlock[] {
  const out: ShellBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j]!)) j++;
    if (open[2] === 'sh' || open[2] === 'bash')
      out.push({
        marks: open[3]!.trim().split(/\s+/).filter(Boolean),
        code: lines
          .slice(i + 1, j)
          .map((l) => l.slice(indent))
          .join('\n'),
        line: i + 1,
      });
    i = j;
  }
  return out;
}

/** The page a relative link points to, from the page it is on. */
export const resolveLink = (from: string, target: string): string =>
  path.normalize(path.join(path.dirname(from), target.split('#')[0]!)) || from;
