import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';

const SOURCES = ['console/src', 'console/index.html', 'console/vite.config.ts'];

function newestMtime(entry: string): number {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(entry).map((name) => newestMtime(path.join(entry, name))));
}

/**
 * Builds the moderator console (Vite) into `outDir` when it is missing or older than its sources,
 * so `npm start` and the browser tests always serve the console as the code is now. Returns
 * whether it built.
 */
export async function ensureConsoleBuilt(outDir = 'dist/console'): Promise<boolean> {
  const index = path.join(outDir, 'index.html');
  const built = fs.existsSync(index) ? fs.statSync(index).mtimeMs : 0;
  if (built >= Math.max(...SOURCES.map(newestMtime))) return false;
  // In a child process: Vite sets NODE_ENV=production in the process it builds in, which would leak
  // into the caller (the tests, npm start) and everything they start.
  const vite = path.join(
    path.dirname(createRequire(import.meta.url).resolve('vite/package.json')),
    'bin/vite.js',
  );
  await promisify(execFile)(
    process.execPath,
    [
      vite,
      'build',
      '--config',
      'console/vite.config.ts',
      '--logLevel',
      'warn',
      '--outDir',
      path.resolve(outDir),
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return true;
}
