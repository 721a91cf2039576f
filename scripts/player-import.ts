import fs from 'node:fs';
import readline from 'node:readline';
import cliProgress from 'cli-progress';
import { parse } from 'csv-parse';
import type { Queryable } from '../common/data/db.js';
import { createPlayers, readImportLine, type PlayerInput } from '../common/usecases/players.js';

export const IMPORT_BATCH_SIZE = 2000;

export interface ImportSummary {
  file: string;
  format: 'jsonl' | 'csv';
  lines: number;
  created: number;
  alreadyPresent: number;
  invalid: number;
  /** Every refused line, with its 1-based line number in the file. */
  invalidLines: { line: number; message: string }[];
}

interface Line {
  line: number;
  value?: unknown;
  invalid?: string;
}

/** The file's records with their line numbers: one JSON object a line, or CSV with a header row. */
async function* records(file: string, format: 'jsonl' | 'csv'): AsyncGenerator<Line> {
  if (format === 'jsonl') {
    const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
    let n = 0;
    for await (const text of lines) {
      n++;
      if (text.trim() === '') continue;
      try {
        yield { line: n, value: JSON.parse(text) as unknown };
      } catch {
        yield { line: n, invalid: 'is not a JSON object' };
      }
    }
    return;
  }
  const skipped: Line[] = [];
  const parser = fs.createReadStream(file).pipe(
    parse({
      columns: true,
      bom: true,
      trim: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      info: true,
    }),
  );
  parser.on('skip', (err: { lines?: number; message: string }) =>
    skipped.push({ line: err.lines ?? 0, invalid: err.message }),
  );
  for await (const { record, info } of parser as AsyncIterable<{
    record: Record<string, string>;
    info: { lines: number };
  }>) {
    while (skipped.length) yield skipped.shift()!;
    yield { line: info.lines, value: record };
  }
  while (skipped.length) yield skipped.shift()!;
}

async function countLines(file: string): Promise<number> {
  let count = 0;
  let last = 10;
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) count++;
    if (chunk.length) last = chunk[chunk.length - 1]!;
  }
  return last === 10 ? count : count + 1;
}

/** Progress on stderr: a bar on a terminal, a plain line at most every second otherwise. */
function progressReporter(total: number, out: NodeJS.WriteStream | NodeJS.WritableStream) {
  const tty = 'isTTY' in out && out.isTTY;
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        stream: out as NodeJS.WriteStream,
        format:
          'importing [{bar}] {percentage}% | {value}/{total} lines | created {created} | present {present} | invalid {invalid}',
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { created: 0, present: 0, invalid: 0 });
    return {
      update: (done: number, s: ImportSummary) =>
        bar.update(done, { created: s.created, present: s.alreadyPresent, invalid: s.invalid }),
      stop: () => bar.stop(),
    };
  }
  let lastAt = 0;
  const line = (done: number, s: ImportSummary) =>
    out.write(
      `imported ${done}/${total} lines: ${s.created} created, ${s.alreadyPresent} already present, ${s.invalid} invalid\n`,
    );
  let latest: [number, ImportSummary] | undefined;
  return {
    update: (done: number, s: ImportSummary) => {
      latest = [done, s];
      if (Date.now() - lastAt >= 1000) {
        lastAt = Date.now();
        line(done, s);
      }
    },
    stop: () => {
      if (latest) line(...latest);
    },
  };
}

/**
 * `admin player import`: creates the file's players in batches of IMPORT_BATCH_SIZE, one statement
 * and one commit a batch, and links each (new or already present) to the game given. A line whose
 * serviceId exists is "already present" and left as it is, so an interrupted import is simply run
 * again; a line that does not parse, fails validation or has a gamer tag another player holds is
 * "invalid", reported with its line number, and the rest go on.
 */
export async function importPlayers(
  db: Queryable,
  opts: {
    file: string;
    format?: 'jsonl' | 'csv';
    gameId?: string;
    progress?: NodeJS.WritableStream;
    batchSize?: number;
  },
): Promise<ImportSummary> {
  const format = opts.format ?? (/\.csv$/i.test(opts.file) ? 'csv' : 'jsonl');
  const total = await countLines(opts.file);
  const summary: ImportSummary = {
    file: opts.file,
    format,
    lines: 0,
    created: 0,
    alreadyPresent: 0,
    invalid: 0,
    invalidLines: [],
  };
  const progress = opts.progress ? progressReporter(total, opts.progress) : undefined;
  const refuse = (line: number, message: string) => {
    summary.invalid++;
    summary.invalidLines.push({ line, message });
  };
  let batch: { line: number; player: PlayerInput }[] = [];
  let lastLine = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const outcomes = await createPlayers(
      db,
      batch.map((b) => b.player),
      { ...(opts.gameId ? { gameId: opts.gameId } : {}), linkExisting: true },
    );
    outcomes.forEach((o, i) => {
      if (o.outcome === 'created') summary.created++;
      else if (o.outcome === 'present') summary.alreadyPresent++;
      else
        refuse(
          batch[i]!.line,
          `gamerTag ${JSON.stringify(batch[i]!.player.gamerTag)} belongs to another player`,
        );
    });
    batch = [];
    progress?.update(lastLine, summary);
  };
  try {
    for await (const rec of records(opts.file, format)) {
      summary.lines++;
      lastLine = rec.line;
      if (rec.invalid !== undefined) {
        refuse(rec.line, rec.invalid);
        continue;
      }
      const player = readImportLine(rec.value);
      if ('invalid' in player) refuse(rec.line, player.invalid);
      else batch.push({ line: rec.line, player });
      if (batch.length >= (opts.batchSize ?? IMPORT_BATCH_SIZE)) await flush();
    }
    await flush();
    lastLine = total;
    progress?.update(total, summary);
  } finally {
    progress?.stop();
  }
  summary.invalidLines.sort((a, b) => a.line - b.line);
  return summary;
}
